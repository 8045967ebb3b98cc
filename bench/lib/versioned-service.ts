/**
 * The API as src/main.ts starts it (same config, database, platform and app), but with one more
 * API version than the platform has yet: a made-up change before today's version that renames a
 * product's `title` to `name` in answers and request bodies (as test/api-versions.test.ts does).
 * What a request one version behind costs is then measured on real records: `Api-Version` set to
 * the older version renders every product of a list down to it and serialises it with that
 * version's schema. Started by bench/admin.ts like the floor.
 */
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { loadSecretsKey } from "../../src/lib/secret-box.ts";
import type { VersionSpec } from "../../src/modules/versions/api-versions.ts";
import { defineVersionChange, type Json } from "../../src/modules/versions/version-change.ts";
import { API_VERSIONS } from "../../src/modules/versions/versions.ts";
import { createPlatform } from "../../src/platform.ts";

const BEHIND = "2026-06-01";
const current = API_VERSIONS.at(-1)!.version;
const renameBody = ({ name, ...rest }: Json) => (name === undefined ? rest : { ...rest, title: name });
const renameSchema = (schema: Json) => {
  const { title: field, ...properties } = schema.properties ?? {};
  if (!field) return schema;
  return {
    ...schema,
    properties: { ...properties, name: field },
    ...(schema.required
      ? { required: schema.required.map((r: string) => (r === "title" ? "name" : r)) }
      : {}),
  };
};
const titled = defineVersionChange({
  version: API_VERSIONS[0]!.version,
  description: "Products are titled (made up for the benchmark).",
  resources: { Product: ({ title, ...rest }) => ({ ...rest, name: title }) },
  requests: { adminCreateProduct: renameBody, adminUpdateProduct: renameBody },
  schemas: { Product: renameSchema },
  requestSchemas: { adminCreateProduct: renameSchema, adminUpdateProduct: renameSchema },
});
const versions: VersionSpec[] = [
  { version: BEHIND, changes: [] },
  ...API_VERSIONS.map((v, i) => (i === 0 ? { ...v, changes: [titled] } : v)),
];
if (versions.at(-1)!.version !== current) throw new Error("the current version moved");

const config = loadConfig(process.env);
const database = await openDatabase({
  url: config.DATABASE_URL,
  schema: config.DATABASE_SCHEMA,
  poolSize: config.DATABASE_POOL_SIZE,
});
await migrate(database);
const platform = createPlatform({
  config,
  database,
  redis: null,
  secretsKey: loadSecretsKey({ secretsKey: config.SECRETS_KEY }),
  apiVersions: versions,
});
const app = await (await import("../../src/app.ts")).buildApp(platform);
await app.listen({ port: config.PORT, host: config.HOST });
const stop = async () => {
  await app.close();
  await platform.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
