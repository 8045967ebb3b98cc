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

/** The access token source of a config: the command (run each time a token is needed) or the token. */
export function tokenSource(config: CliConfig): { accessToken(): Promise<string> } {
  if (config.tokenCommand) {
    const command = config.tokenCommand;
    return {
      async accessToken() {
        const { stdout } = await exec("/bin/sh", ["-c", command], { timeout: 10_000 });
        const token = stdout.trim();
        if (!token) throw new Error(`the token command printed nothing: ${command}`);
        return token;
      },
    };
  }
  if (config.accessToken) {
    const token = config.accessToken;
    return { accessToken: async () => token };
  }
  throw new UsageError(
    "No credentials: run `merchant-platform login --base-url <url> --token <access token>` (or --token-command), or set MP_ACCESS_TOKEN.",
  );
}

/** Bad arguments or missing setup: exit code 2. */
export class UsageError extends Error {}
