import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DataDirLockedError, lockDataDir } from "./data-dir-lock.ts";

const made: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mp-lock-"));
  made.push(dir);
  return dir;
};
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Another process that takes the lock, reports, and holds it until it is killed. It drops the
 * handle and collects garbage, as a long-running process eventually does: the lock must stay.
 */
function holder(dataDir: string) {
  const source = `
    const { lockDataDir } = await import(${JSON.stringify(join(import.meta.dirname, "data-dir-lock.ts"))});
    lockDataDir(${JSON.stringify(dataDir)});
    globalThis.gc();
    process.stdout.write("locked\\n");
    setInterval(() => globalThis.gc(), 10);
  `;
  const child = spawn(process.execPath, ["--expose-gc", "--input-type=module", "-e", source], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d) => String(d).includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited (${code}) before locking`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { child, locked, exited };
}

describe("data directory lock", () => {
  it("is exclusive, creates the directory, and is free again once released", () => {
    const dataDir = join(freshDir(), "nested", "data");
    const lock = lockDataDir(dataDir);
    assert.ok(existsSync(dataDir));
    assert.equal(readFileSync(join(dataDir, "instance.pid"), "utf8").trim(), String(process.pid));
    assert.throws(
      () => lockDataDir(dataDir),
      (error: unknown) =>
        error instanceof DataDirLockedError &&
        error.dataDir === dataDir &&
        error.pid === process.pid &&
        error.message.includes(dataDir) &&
        error.message.includes(`pid ${process.pid}`),
    );
    lock.release();
    lock.release(); // idempotent
    assert.equal(existsSync(join(dataDir, "instance.pid")), false);
    lockDataDir(dataDir).release();
  });

  it("names the other process that holds it, and frees it when that process is SIGKILLed", async () => {
    const dataDir = freshDir();
    const other = holder(dataDir);
    await other.locked;
    assert.throws(
      () => lockDataDir(dataDir),
      (error: unknown) => error instanceof DataDirLockedError && error.pid === other.child.pid,
    );
    other.child.kill("SIGKILL");
    await other.exited;
    // The pid file is still there, naming a process that is gone: it does not matter.
    assert.equal(readFileSync(join(dataDir, "instance.pid"), "utf8").trim(), String(other.child.pid));
    const lock = lockDataDir(dataDir);
    assert.equal(readFileSync(join(dataDir, "instance.pid"), "utf8").trim(), String(process.pid));
    lock.release();
  });

  it("does not trust a pid file: a live pid in it without the lock does not block", () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, "instance.pid"), `${process.ppid}\n`);
    lockDataDir(dataDir).release();
  });
});
