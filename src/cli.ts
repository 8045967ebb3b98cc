import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { buildApp } from "./app.ts";
import { type Config, ConfigError, ConfigSchema, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { lockDataDir } from "./db/data-dir-lock.ts";
import { migrate } from "./db/migrate.ts";
import { StartupError } from "./lib/preflight.ts";
import { demoCredentialsFile, seedDemo } from "./modules/demo/demo-seed.ts";
import { changelogMarkdown, documentAt } from "./modules/versions/documents.ts";
import { createPlatform } from "./platform.ts";

const json = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

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
      // The committed documents are generated with fixed settings so they do not depend on the
      // environment: openapi.json (the current version), openapi/<version>.json for every other
      // declared version, and docs/api-changelog.md. `--write` writes them, `--check` fails when
      // one is stale (CI), and without either the current document goes to standard output.
      process.env.PUBLIC_BASE_URL = "http://localhost:3000";
      const files = await withPlatform(
        async (platform) => {
          const app = await buildApp(platform);
          await app.ready();
          const current = app.swagger() as Record<string, unknown>;
          const { registry, schemas, declared } = platform.versions;
          const now = platform.clock.now();
          const out = new Map<string, string>([["openapi.json", json(current)]]);
          for (const v of declared)
            if (v.version !== registry.current(now))
              out.set(
                join("openapi", `${v.version}.json`),
                json(documentAt(current, v.version, { versions: registry, schemas })),
              );
          out.set(join("docs", "api-changelog.md"), changelogMarkdown(declared));
          await app.close();
          return out;
        },
        { memory: true },
      );
      const root = resolve(import.meta.dirname, "..");
      const mode = process.argv[3];
      if (mode === "--write") {
        for (const [file, text] of files) {
          mkdirSync(dirname(join(root, file)), { recursive: true });
          writeFileSync(join(root, file), text);
        }
      } else if (mode === "--check") {
        const stale = [...files].filter(([file, text]) => {
          const path = join(root, file);
          return !existsSync(path) || readFileSync(path, "utf8") !== text;
        });
        if (stale.length) {
          console.error(`stale: ${stale.map(([f]) => f).join(", ")}: run npm run openapi`);
          process.exitCode = 1;
        }
      } else process.stdout.write(files.get("openapi.json")!);
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
