import { createServer } from "node:http";
import { createSampleApp } from "./app.ts";

const need = (name: string) => {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see README.md).`);
    process.exit(2);
  }
  return value;
};

const port = Number(process.env.PORT ?? 8080);
const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${port}`;
const app = createSampleApp({
  platformUrl: process.env.PLATFORM_URL ?? "http://localhost:3000",
  clientId: need("CLIENT_ID"),
  clientSecret: need("CLIENT_SECRET"),
  publicUrl,
  ...(process.env.WEBHOOK_URL ? { webhookUrl: process.env.WEBHOOK_URL } : {}),
  listenSecrets: (process.env.LISTEN_SECRET ?? "").split(",").filter(Boolean),
  dataFile: process.env.DATA_FILE ?? "sample-app-data.json",
  devTokens: process.env.DEV_TOKENS !== "false",
});
const server = createServer(app.handler);
// Loopback only: /dev/token hands out access tokens.
server.listen(port, process.env.HOST ?? "127.0.0.1", () => {
  console.log(`Sample app on ${publicUrl}  (redirect URI: ${publicUrl}/oauth/callback)`);
});
process.once("SIGTERM", () => server.close());
process.once("SIGINT", () => server.close());
