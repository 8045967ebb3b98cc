import pino from "pino";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { createTestContext } from "./harness.ts";

/** A test context whose process also runs the delivery worker, woken by NOTIFY like production. */
export async function createWebhookContext(
  env: Record<string, string> = {},
  options: Parameters<typeof createTestContext>[1] = {},
) {
  const ctx = await createTestContext(
    {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_BASE_MS: "200",
      // An attempt's time-out and lease with room for a loaded machine (two test files on two
      // cores): a TLS handshake that takes over a second there is not a receiver's failure.
      WEBHOOK_TIMEOUT_MS: "10000",
      WEBHOOK_LEASE_MS: "15000",
      ...env,
    },
    options,
  );
  const worker = ctx.platform.webhooks.createWorker(pino({ level: "silent" }));
  const unlisten = await listenForEvents(ctx.platform.database, worker.poke, () => {});
  worker.start();
  return {
    ...ctx,
    worker,
    async close() {
      await unlisten();
      await worker.stop();
      await ctx.close();
    },
  };
}

export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
