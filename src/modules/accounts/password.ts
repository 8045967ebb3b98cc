import { hash, verify } from "@node-rs/argon2";

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): about 20 ms here, memory-hard against GPUs.
// `algorithm: 2` is Algorithm.Argon2id: the library exports it as a const enum, which type stripping cannot read.
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** A hash to verify against when the account does not exist, so both answers take the same time. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword("not-a-real-password-just-for-timing");
  return dummyHash;
}

/**
 * What the account service needs of password hashing, passed in by platform.ts: the one place
 * that decides the algorithm, and a seam where the guessing throttles' tests count verifications.
 */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
  /** A hash of no one's password, for the same work when the account does not exist. */
  dummyHash(): Promise<string>;
}

export const argon2idPasswords: PasswordHashing = {
  hash: hashPassword,
  verify: verifyPassword,
  dummyHash: dummyPasswordHash,
};
