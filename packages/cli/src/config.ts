import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

/**
 * What `login` saves: the platform's URL and how to get an installation's access token, either a
 * token itself (it lives an hour) or a command that prints a current one (your app's, which owns
 * the refresh token: the CLI never refreshes, so it never spends a refresh token your app relies on).
 */
export interface CliConfig {
  baseUrl?: string;
  accessToken?: string;
  tokenCommand?: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MERCHANT_PLATFORM_CONFIG) return env.MERCHANT_PLATFORM_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "merchant-platform", "config.json");
}

export async function readConfig(path: string): Promise<CliConfig> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as CliConfig;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Error(`${path} is not readable JSON: ${(error as Error).message}`);
  }
}

/** Written readable by its owner only: it holds a credential. */
export async function writeConfig(path: string, config: CliConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** Flags, then environment (MP_BASE_URL, MP_ACCESS_TOKEN, MP_TOKEN_COMMAND), then the saved config. */
export function resolveConfig(flags: CliConfig, env: NodeJS.ProcessEnv, saved: CliConfig): CliConfig {
  const pick = (flag: string | undefined, name: string, stored: string | undefined) =>
    flag ?? env[name] ?? stored;
  const accessToken = pick(flags.accessToken, "MP_ACCESS_TOKEN", undefined);
  const tokenCommand = pick(flags.tokenCommand, "MP_TOKEN_COMMAND", undefined);
  return {
    baseUrl: pick(flags.baseUrl, "MP_BASE_URL", saved.baseUrl),
    // A token or command given now wins over both saved ones.
    ...(accessToken || tokenCommand
      ? { ...(accessToken ? { accessToken } : {}), ...(tokenCommand ? { tokenCommand } : {}) }
      : {
          ...(saved.accessToken ? { accessToken: saved.accessToken } : {}),
          ...(saved.tokenCommand ? { tokenCommand: saved.tokenCommand } : {}),
        }),
  };
}

const exec = promisify(execFile);

/** How long a token command may take. */
const TOKEN_COMMAND_TIMEOUT_MS = 10_000;
/**
 * What a bearer credential may be (RFC 6750 section 2.1, b64token). An error page, a JSON error,
 * a sentence ("not installed") is not a token: sending it would only get the platform's
 * INVALID_TOKEN, which says nothing about the command.
 */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A `--token-command` that failed or printed no access token: exit code 4, with what it printed. */
export class TokenCommandError extends Error {}

/** What a command printed, for a message: both streams, trimmed and cut short. */
function printed(stdout: string | undefined, stderr: string | undefined): string {
  const cut = (text: string) => {
    const t = text.trim();
    return t.length > 500 ? `${t.slice(0, 500)}…` : t;
  };
  const out = cut(stdout ?? "");
  const err = cut(stderr ?? "");
  if (!out && !err) return "\n  It printed nothing.";
  return `${out ? `\n  It printed: ${out}` : ""}${err ? `\n  On stderr: ${err}` : ""}`;
}

/** Runs a token command and answers the token it printed; TokenCommandError says what went wrong. */
async function runTokenCommand(command: string): Promise<string> {
  let stdout: string;
  let stderr: string;
  try {
    ({ stdout, stderr } = await exec("/bin/sh", ["-c", command], {
      timeout: TOKEN_COMMAND_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    }));
  } catch (error) {
    const failed = error as Error & {
      code?: number | string;
      killed?: boolean;
      signal?: NodeJS.Signals | null;
      stdout?: string;
      stderr?: string;
    };
    const why =
      failed.killed && failed.signal === "SIGTERM"
        ? `did not finish within ${TOKEN_COMMAND_TIMEOUT_MS / 1000} s`
        : typeof failed.code === "number"
          ? `failed (exit status ${failed.code})`
          : failed.signal
            ? `was stopped by ${failed.signal}`
            : `could not run (${failed.message})`;
    throw new TokenCommandError(
      `The token command ${why}: ${command}${printed(failed.stdout, failed.stderr)}`,
    );
  }
  const token = stdout.trim();
  if (!token)
    throw new TokenCommandError(
      `The token command printed no access token: ${command}${printed(stdout, stderr)}`,
    );
  if (!BEARER_TOKEN.test(token))
    throw new TokenCommandError(
      `The token command printed something that is not an access token: ${command}${printed(stdout, stderr)}`,
    );
  return token;
}

/** Where the access token comes from: the command (run each time a token is needed) or the token. */
export interface TokenSource {
  accessToken(): Promise<string>;
  /** The token command, when the token comes from one (to say so when the platform refuses it). */
  command: string | null;
}

/** The access token source of a config: the command (run each time a token is needed) or the token. */
export function tokenSource(config: CliConfig): TokenSource {
  if (config.tokenCommand) {
    const command = config.tokenCommand;
    return { command, accessToken: () => runTokenCommand(command) };
  }
  if (config.accessToken) {
    const token = config.accessToken;
    return { command: null, accessToken: async () => token };
  }
  throw new UsageError(
    "No credentials: run `merchant-platform login --base-url <url> --token <access token>` (or --token-command), or set MP_ACCESS_TOKEN.",
  );
}

/**
 * The platform's URL as `--base-url` gives it: an http(s) origin. The SDK calls absolute paths
 * on it, so a path, a query or credentials in it would be silently dropped: refused instead.
 */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--base-url must be the platform's URL, such as http://localhost:3000; got "${text}"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--base-url must be an http:// or https:// URL; got "${text}"`);
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== ""))
    throw new UsageError(
      `--base-url is the platform's origin only (such as ${url.origin}), without a path, query or credentials; got "${text}"`,
    );
  return url.origin;
}

/** Bad arguments or missing setup: exit code 2. */
export class UsageError extends Error {}
