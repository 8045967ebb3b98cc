import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { StartupError } from "../lib/preflight.ts";

const LOCK_FILE = "instance.lock";
const PID_FILE = "instance.pid";
const SQLITE_BUSY = 5;
/**
 * The open lock connections. A connection nothing refers to is garbage-collected, and closing it
 * frees the lock: a caller that drops the returned handle must still keep the directory.
 */
const held = new Set<DatabaseSync>();

export class DataDirLockedError extends StartupError {
  readonly dataDir: string;
  readonly pid: number | null;
  constructor(dataDir: string, pid: number | null) {
    super(
      `DATA_DIR ${dataDir} is in use by another process (${pid ? `pid ${pid}` : "pid unknown"}). ` +
        "The embedded database allows one process per data directory: stop that process first, " +
        "or give this one its own DATA_DIR (several instances need DATABASE_URL).",
    );
    this.dataDir = dataDir;
    this.pid = pid;
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Gives the directory up (the process ending does the same, however it ends). */
  release(): void;
}

/**
 * Takes the embedded data directory for this process, or throws DataDirLockedError naming the
 * process that has it. Call before anything opens the database or writes into the directory.
 *
 * The lock is the operating system's (fcntl on POSIX, LockFileEx on Windows) on
 * DATA_DIR/instance.lock, taken through SQLite, which Node ships: an exclusive transaction that
 * stays open for the life of the process. Taking it is atomic, and the kernel drops it when the
 * process ends, however it ends (SIGKILL, a crash, a power cut), so there is no stale lock to
 * detect and no pid to trust: a pid file with a liveness check cannot tell a reused pid from the
 * owner, and replacing a stale lock file safely needs a compare-and-swap files do not have. The
 * holder's pid is written beside the lock only for the message the next process prints.
 */
export function lockDataDir(dir: string): DataDirLock {
  const dataDir = resolve(dir);
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, PID_FILE);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
  const lock = new DatabaseSync(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    lock.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode === SQLITE_BUSY)
      throw new DataDirLockedError(dataDir, readPid(pidFile));
    throw error;
  }
  // Written whole, then renamed into place, so a reader never sees half a pid.
  const temporary = `${pidFile}.${process.pid}.tmp`;
  writeFileSync(temporary, `${process.pid}\n`);
  renameSync(temporary, pidFile);
  held.add(lock);
  return {
    dataDir,
    release() {
      if (!held.delete(lock)) return;
      // The pid file goes first: once the lock is free, it may already be the next holder's.
      rmSync(pidFile, { force: true });
      lock.close();
    },
  };
}

/** The holder's pid as it recorded it, or null when unknown (not written yet, or left by a process now gone). */
function readPid(file: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(file, "utf8"), 10);
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
  }
}
