import { resolve } from "node:path";
import { buildApp } from "./app.ts";
import { type Config, ConfigError, ConfigSchema, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { lockDataDir } from "./db/data-dir-lock.ts";
import { migrate } from "./db/migrate.ts";
import { StartupError } from "./lib/preflight.ts";
import { demoCredentialsFile, seedDemo } from "./modules/demo/demo-seed.ts";
import { createPlatform } from "./platform.ts";

/** Operator commands: migrate | seed | openapi | config (`npm run cli -- <command>`). */
const command = process.argv[2];

/** The embedded data directory for this command alone, as for the server (null on DATABASE_URL). */
const lockEmbedded = (config: Config) => (config.DATABASE_URL ? null : lockDataDir(resolve(config.DATA_DIR)));

async function withPlatform<T>(
  fn: (platform: ReturnType<typeof createPlatform>) => Promise<T>,
  options: { memory?: boolean } = {},
) {
  const config = loadConfig();
  const lock = options.memory ? null : lockEmbedded(config);
  try {
    const database = await openDatabase({
      url: options.memory ? undefined : config.DATABASE_URL,
      dataDir: options.memory ? undefined : resolve(config.DATA_DIR),
      schema: config.DATABASE_SCHEMA,
    });
    try {
      await migrate(database);
      return await fn(createPlatform({ config, database }));
    } finally {
      await database.close();
    }
  } finally {
    lock?.release();
  }
}

try {
  switch (command) {
    case "migrate": {
      const config = loadConfig();
      const lock = lockEmbedded(config);
      const database = await openDatabase({
        url: config.DATABASE_URL,
        dataDir: resolve(config.DATA_DIR),
        schema: config.DATABASE_SCHEMA,
      });
      const applied = await migrate(database);
      await database.close();
      lock?.release();
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "up to date");
      break;
    }
    case "seed": {
      const result = await withPlatform(async (platform) => {
        const demo = await seedDemo(platform, {
          credentialsFile: platform.config.DATABASE_URL
            ? undefined
            : demoCredentialsFile(resolve(platform.config.DATA_DIR)),
        });
        await demo.history?.();
        return demo;
      });
      console.log(
        result.created
          ? `demo created: ${result.email} / ${result.password} (store "${result.storeSlug}")`
          : `demo already exists: ${result.email}${result.password ? ` / ${result.password}` : ""}`,
      );
      break;
    }
    case "openapi": {
      // The committed document is generated with fixed settings so it does not depend on the environment.
      process.env.PUBLIC_BASE_URL = "http://localhost:3000";
      const document = await withPlatform(
        async (platform) => {
          const app = await buildApp(platform);
          await app.ready();
          const doc = app.swagger();
          await app.close();
          return doc;
        },
        { memory: true },
      );
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      break;
    }
    case "config": {
      for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
        const s = schema as { default?: unknown; description?: string };
        console.log(
          `| \`${name}\` | ${s.default === undefined ? "" : `\`${String(s.default)}\``} | ${s.description ?? ""} |`,
        );
      }
      break;
    }
    default:
      console.error("usage: npm run cli -- migrate|seed|openapi|config");
      process.exit(64);
  }
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof StartupError ? error.message : error);
  process.exit(1);
}
