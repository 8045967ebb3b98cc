import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";

/**
 * Creates an embedded data directory (PostgreSQL's initdb, compiled to WebAssembly) in a
 * short-lived child process when it does not exist yet. initdb and the first compilation of its
 * module peak at several hundred megabytes that the WebAssembly heap never gives back: done in the
 * serving process, the server kept that memory for its whole life (VmHWM 1.1 GB on a fresh
 * directory against ~0.5 GB when opening an existing one). The child exits when the directory is
 * ready; the server then opens it like any other start. A directory that a crash left half-made
 * lacks PG_VERSION, which initdb writes last, and is made again by PGlite itself.
 */
export async function ensureEmbeddedDataDir(pgdata: string): Promise<void> {
  if (existsSync(`${pgdata}/PG_VERSION`)) return;
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), pgdata], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : null)));
  });
  if (code !== 0)
    throw new Error(`creating the embedded database in ${pgdata} failed (exit ${code}): ${stderr.trim()}`);
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: pglite-init.ts <data directory>");
  const pglite = await PGlite.create(dir);
  await pglite.close();
}
