import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { listMigrations, MIGRATIONS_DIR, migrate } from "../src/db/migrate.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { createPlatform } from "../src/platform.ts";

const TEMPLATES = join(tmpdir(), "merchant-platform-tests");

/** Writes `data` to `file` whole: two processes making the same file at once both write, then rename. */
async function writeWhole(file: string, data: Buffer | string): Promise<void> {
  await mkdir(TEMPLATES, { recursive: true });
  const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(partial, data);
  await rename(partial, file);
}

let template: Promise<Blob> | undefined;

/**
 * The embedded database with every migration applied, dumped once and kept in the system's temp
 * directory under a hash of the migrations: every test process starts its databases from a copy
 * instead of creating a cluster and migrating it (seconds each). A new or changed migration makes
 * a new file, made by one process while the others that need it wait (`makeOnce`).
 */
export function embeddedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const hash = createHash("sha256");
    for (const name of listMigrations()) hash.update(name).update(await readFile(join(MIGRATIONS_DIR, name)));
    const file = join(TEMPLATES, `template-${hash.digest("hex").slice(0, 16)}.tar`);
    const read = () =>
      readFile(file).then(
        (b) => new Blob([b]),
        () => null,
      );
    return makeOnce(file, read, async () => {
      const database = await openDatabase({ schema: "public" });
      try {
        await migrate(database);
        if (database.kind !== "pglite") throw new Error("unreachable: no URL opens the embedded database");
        const dump = await database.pglite.dumpDataDir("none");
        await writeWhole(file, Buffer.from(await dump.arrayBuffer()));
        return dump;
      } finally {
        await database.close();
      }
    });
  })();
  return template;
}

/** The demo store made by the real seed, and what a test needs to use it. */
export interface DemoTemplate {
  dump: Blob;
  /** The instant the seed ran at: a test's clock starts there, so "today" is the seed's today. */
  seededAt: number;
  email: string;
  password: string;
}

let demo: Promise<DemoTemplate> | undefined;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|sql)$/.test(entry.name) && !entry.name.endsWith(".test.ts")) yield path;
  }
}

/**
 * The migrated template with the demo store seeded by `seedDemo` (90 days of history through the
 * services: about 20,000 statements, a minute on a busy machine), made once and kept like the
 * template, under a hash of every source file of the service (a change to a service the seed
 * goes through makes a new one). The demo's own test and the browser tests start from a copy.
 */
export function demoTemplate(): Promise<DemoTemplate> {
  demo ??= (async () => {
    const hash = createHash("sha256");
    const src = join(import.meta.dirname, "..", "src");
    for (const file of [...sourceFiles(src)].sort()) {
      hash.update(file.slice(src.length)).update(await readFile(file));
    }
    const file = join(TEMPLATES, `demo-${hash.digest("hex").slice(0, 16)}`);
    const read = async (): Promise<DemoTemplate | null> => {
      try {
        const about = JSON.parse(await readFile(`${file}.json`, "utf8")) as Omit<DemoTemplate, "dump">;
        return { ...about, dump: new Blob([await readFile(`${file}.tar`)]) };
      } catch {
        return null;
      }
    };
    // About 45 s of CPU: made by one process while the others wait for it.
    return makeOnce(file, read, () => seedTemplate(file));
  })();
  return demo;
}

/**
 * What `read` finds, else made by `make` in one process at a time: the others that need it
 * meanwhile wait for its files (`make` writes them whole) instead of making the same beside it. A
 * holder that died leaves a lock naming a process that is gone: the next one takes it over.
 */
async function makeOnce<T>(file: string, read: () => Promise<T | null>, make: () => Promise<T>): Promise<T> {
  for (;;) {
    const made = await read();
    if (made) return made;
    if (await takeLock(`${file}.lock`)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  try {
    return (await read()) ?? (await make());
  } finally {
    rmSync(`${file}.lock`, { force: true });
  }
}

/** Creates `lock` naming this process; false while another live process holds it. */
async function takeLock(lock: string): Promise<boolean> {
  await mkdir(TEMPLATES, { recursive: true });
  try {
    await writeFile(lock, String(process.pid), { flag: "wx" });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const holder = Number(await readFile(lock, "utf8").catch(() => ""));
  if (holder > 0) {
    try {
      process.kill(holder, 0);
      return false;
    } catch {}
  }
  // No live holder (or a lock file caught half written: read again next time round).
  if (holder > 0) rmSync(lock, { force: true });
  return false;
}

/** Seeds the demo store into a new embedded database and keeps its dump as `file`.tar and .json. */
async function seedTemplate(file: string): Promise<DemoTemplate> {
  const database = await openDatabase({ schema: "public", embeddedTemplate: await embeddedTemplate() });
  const seededAt = Date.now();
  const config = loadConfig({ LOG_LEVEL: "silent", DEMO_SEED: "false", DATABASE_SCHEMA: "public" });
  // The real clock, as a first start has: the seed writes its history back from now.
  const platform = createPlatform({ config, database });
  try {
    const seeded = await seedDemo(platform);
    await seeded.history!();
    if (database.kind !== "pglite") throw new Error("unreachable: no URL opens the embedded database");
    const dump = await database.pglite.dumpDataDir("none");
    const about = { seededAt, email: seeded.email, password: seeded.password! };
    await writeWhole(`${file}.tar`, Buffer.from(await dump.arrayBuffer()));
    await writeWhole(`${file}.json`, JSON.stringify(about));
    return { ...about, dump };
  } finally {
    await platform.close();
  }
}

let templateDir: Promise<string> | undefined;

/**
 * Fills `dataDir` (a service's DATA_DIR, empty or absent) with an embedded database already
 * migrated, copied from one made from the template once per test process: a process test then
 * starts in seconds instead of creating and migrating a cluster on disk first. A test of the
 * first start itself passes an empty directory instead.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  templateDir ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "mp-template-"));
    const pglite = await PGlite.create(join(dir, "pgdata"), {
      loadDataDir: await embeddedTemplate(),
      extensions: { pg_trgm },
    });
    await pglite.close();
    process.once("exit", () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {}
    });
    return dir;
  })();
  cpSync(await templateDir, dataDir, { recursive: true });
}
