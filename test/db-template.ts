import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { openDatabase } from "../src/db/client.ts";
import { listMigrations, MIGRATIONS_DIR, migrate } from "../src/db/migrate.ts";

let template: Promise<Blob> | undefined;

/**
 * The embedded database with every migration applied, dumped once and kept in the system's temp
 * directory under a hash of the migrations: every test process starts its databases from a copy
 * instead of creating a cluster and migrating it (seconds each). A new or changed migration makes
 * a new file; two processes making the same one at once both write it whole, then rename.
 */
export function embeddedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const hash = createHash("sha256");
    for (const name of listMigrations()) hash.update(name).update(await readFile(join(MIGRATIONS_DIR, name)));
    const dir = join(tmpdir(), "merchant-platform-tests");
    const file = join(dir, `template-${hash.digest("hex").slice(0, 16)}.tar`);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      const database = await openDatabase({ schema: "public" });
      try {
        await migrate(database);
        if (database.kind !== "pglite") throw new Error("unreachable: no URL opens the embedded database");
        const dump = await database.pglite.dumpDataDir("none");
        await mkdir(dir, { recursive: true });
        const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
        await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
        await rename(partial, file);
        return dump;
      } finally {
        await database.close();
      }
    }
  })();
  return template;
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
