import { parseArgs } from "node:util";
import {
  createAdminClient,
  enableWebhook,
  forwardWebhook,
  listen,
  PlatformError,
  recoverWebhook,
  unwrap,
  type WebhookEventName,
} from "@merchant-platform/sdk";
import {
  type CliConfig,
  configPath,
  readConfig,
  resolveConfig,
  tokenSource,
  UsageError,
  writeConfig,
} from "./config.ts";
import { parseSince } from "./since.ts";

/** Exit codes scripts can rely on. */
export const EXIT = {
  ok: 0,
  /** The platform refused (credentials, scope, not found) or could not be reached. */
  failed: 1,
  usage: 2,
  /** `listen`: a forwarded webhook got no 2xx from the local endpoint (with --fail-on-error). */
  forwardFailed: 3,
} as const;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

const USAGE = `merchant-platform <command> [options]

Commands:
  login --base-url <url> (--token <access token> | --token-command <cmd>)
                       Save where the platform is and how to get an installation's access token
                       (scope manage_webhooks). --token-command runs each time a token is needed
                       (e.g. your app's dev endpoint), so a refresh token stays with your app.
  listen --forward-to <url> [--events order.created,...] [--fail-on-error]
                       Stream the installation's events and POST each to <url> with the headers and
                       signature of a real delivery (plain http://localhost is fine). Prints the
                       session's signing secret once. Ends after app/uninstalled, or on Ctrl-C.
  trigger <event>      Send a test event (marked test) to the app's subscriptions and listeners.
  deliveries [--failed] [--event <name>] [--limit <n>]
                       Recent deliveries: status, attempts, target, next retry.
  redeliver <delivery id>
                       Send a delivery again.
  recover <subscription id> --since <2h | 30m | 3d | 2026-11-26T10:00:00Z> [--until <…>]
                       Send once more every delivery of the subscription created since then that
                       failed (or was skipped while it was disabled), under its original
                       x-webhook-id. Each is recovered once, however often you run this.
  webhooks             The installation's subscriptions; disabled ones with when and why.
  enable <subscription id> [--recover-since <2h | …>]
                       Make a disabled subscription active again (and recover since then).

Options for every command: --base-url, --token, --token-command (or MP_BASE_URL, MP_ACCESS_TOKEN,
MP_TOKEN_COMMAND; otherwise what login saved in ${configPath({})}).
Exit codes: 0 done, 1 the platform refused or is unreachable, 2 bad usage, 3 a forward failed (--fail-on-error).
`;

const COMMON = {
  "base-url": { type: "string" },
  token: { type: "string" },
  "token-command": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function line(io: Io, text: string) {
  io.stdout.write(`${text}\n`);
}

async function settings(io: Io, values: { "base-url"?: string; token?: string; "token-command"?: string }) {
  const flags: CliConfig = {
    ...(values["base-url"] ? { baseUrl: values["base-url"] } : {}),
    ...(values.token ? { accessToken: values.token } : {}),
    ...(values["token-command"] ? { tokenCommand: values["token-command"] } : {}),
  };
  const config = resolveConfig(flags, io.env, await readConfig(configPath(io.env)));
  if (!config.baseUrl) throw new UsageError("No platform URL: pass --base-url or run login.");
  return { baseUrl: config.baseUrl, tokens: tokenSource(config) };
}

async function login(io: Io, argv: string[]) {
  const { values } = parseArgs({ args: argv, options: COMMON, strict: true });
  if (!values["base-url"] || (!values.token && !values["token-command"]))
    throw new UsageError("login needs --base-url and --token or --token-command.");
  const config: CliConfig = {
    baseUrl: values["base-url"],
    ...(values.token ? { accessToken: values.token } : {}),
    ...(values["token-command"] ? { tokenCommand: values["token-command"] } : {}),
  };
  // Check before saving: the token must work and carry manage_webhooks.
  const admin = createAdminClient({
    baseUrl: config.baseUrl!,
    accessToken: await tokenSource(config).accessToken(),
  });
  await unwrap(admin.GET("/api/v1/apps/api/webhooks"));
  const path = configPath(io.env);
  await writeConfig(path, config);
  line(io, `Saved to ${path} (readable by you only).`);
  return EXIT.ok;
}

async function listenCommand(io: Io, argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...COMMON,
      "forward-to": { type: "string" },
      events: { type: "string" },
      "fail-on-error": { type: "boolean" },
    },
    strict: true,
  });
  const target = values["forward-to"];
  if (!target) throw new UsageError("listen needs --forward-to <url>, e.g. http://localhost:8080/webhooks");
  try {
    const url = new URL(target);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw new UsageError(`--forward-to must be an http(s) URL, got "${target}"`);
  }
  const { baseUrl, tokens } = await settings(io, values);
  const events = values.events
    ?.split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const tty = Boolean(io.stderr.isTTY);
  let forwarded = 0;
  let failed = 0;
  const status = (text: string) => {
    if (tty) io.stderr.write(`\r\x1b[2K${text}`);
  };
  for await (const message of listen({
    baseUrl,
    tokens,
    ...(events ? { events } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  })) {
    if (message.type === "session") {
      if (message.secret) {
        line(io, `Ready. Forwarding ${message.events.join(", ")} to ${target}`);
        line(io, `Webhook signing secret for this session: ${message.secret}`);
        line(io, "(verify forwarded webhooks with it while you develop; it is shown only now)");
      } else line(io, `Reconnected; resuming session ${message.sessionId}.`);
      status(`listening · ${forwarded} forwarded · ${failed} failed`);
    } else if (message.type === "webhook") {
      const at = new Date().toISOString().slice(11, 19);
      const test = message.headers["x-webhook-test"] === "true" ? " [test]" : "";
      try {
        const result = await forwardWebhook(message, target);
        const ok = result.status >= 200 && result.status < 300;
        if (ok) forwarded++;
        else failed++;
        if (tty) io.stderr.write("\r\x1b[2K");
        line(
          io,
          `${at}  ${message.event}${test}  ${message.id}  → ${result.status} (${Math.round(result.durationMs)} ms)`,
        );
        if (!ok && values["fail-on-error"]) return EXIT.forwardFailed;
      } catch (error) {
        failed++;
        if (tty) io.stderr.write("\r\x1b[2K");
        line(
          io,
          `${at}  ${message.event}${test}  ${message.id}  → not delivered: ${(error as Error).message}`,
        );
        if (values["fail-on-error"]) return EXIT.forwardFailed;
      }
      status(`listening · ${forwarded} forwarded · ${failed} failed`);
    } else if (message.type === "reconnecting") {
      status(
        `connection lost (${(message.error as Error)?.message ?? message.error}); reconnecting, attempt ${message.attempt}…`,
      );
      if (!tty) io.stderr.write(`connection lost; reconnecting (attempt ${message.attempt})\n`);
    } else if (message.type === "end") {
      if (tty) io.stderr.write("\r\x1b[2K");
      line(
        io,
        `The stream ended: ${message.message ?? message.reason} ${forwarded} forwarded, ${failed} failed.`,
      );
      return EXIT.ok;
    }
  }
  if (tty) io.stderr.write("\r\x1b[2K");
  line(io, `Stopped. ${forwarded} forwarded, ${failed} failed.`);
  return EXIT.ok;
}

async function trigger(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: COMMON,
    allowPositionals: true,
    strict: true,
  });
  const event = positionals[0];
  if (!event || positionals.length > 1)
    throw new UsageError("trigger needs one event name, e.g. trigger order.created");
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const result = await unwrap(
    admin.POST("/api/v1/apps/api/webhooks/test", { body: { event: event as WebhookEventName } }),
  );
  line(
    io,
    `Test event ${result.eventId} (${result.event}) queued for this installation's subscriptions and listeners.`,
  );
  return EXIT.ok;
}

async function deliveries(io: Io, argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: { ...COMMON, failed: { type: "boolean" }, event: { type: "string" }, limit: { type: "string" } },
    strict: true,
  });
  const limit = values.limit ? Number(values.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError("--limit must be 1 to 100");
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const rows = await unwrap(
    admin.GET("/api/v1/apps/api/webhooks/deliveries", {
      params: {
        query: {
          limit,
          ...(values.failed ? { status: "failed" as const } : {}),
          ...(values.event ? { event: values.event as WebhookEventName } : {}),
        },
      },
    }),
  );
  if (!rows.length) {
    line(io, "No deliveries.");
    return EXIT.ok;
  }
  for (const d of rows) {
    const last = d.attemptLog.at(-1);
    const next = d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : "";
    line(
      io,
      `${d.id}  ${d.eventName.padEnd(18)} ${d.status.padEnd(9)} ${d.attempts} attempt(s)  ${last?.statusCode ?? last?.error ?? "-"}  ${d.targetUrl}${next}${d.test ? "  [test]" : ""}`,
    );
  }
  return EXIT.ok;
}

async function redeliver(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: COMMON,
    allowPositionals: true,
    strict: true,
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError("redeliver needs one delivery id");
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const created = await unwrap(
    admin.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", { params: { path: { id } } }),
  );
  line(io, `Queued ${created.id} (a new delivery of ${id}).`);
  return EXIT.ok;
}

function instant(flag: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const at = parseSince(text);
  if (!at)
    throw new UsageError(
      `${flag} must be a duration back from now (90s, 30m, 2h, 3d, 1w) or a date and time such as 2026-11-26T10:00:00Z, got "${text}"`,
    );
  return at;
}

async function recover(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...COMMON, since: { type: "string" }, until: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const id = positionals[0];
  if (!id || positionals.length > 1 || !values.since)
    throw new UsageError("recover needs one subscription id and --since, e.g. recover whsub_… --since 2h");
  const since = instant("--since", values.since)!;
  const until = instant("--until", values.until);
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const result = await recoverWebhook(admin, id, { since, ...(until ? { until } : {}) });
  line(
    io,
    result.queued === 0
      ? `Nothing to recover between ${result.since} and ${result.until}.`
      : `Queued ${result.queued} failed deliver${result.queued === 1 ? "y" : "ies"} from ${result.since} to ${result.until} again, with their original ids (see deliveries).`,
  );
  return EXIT.ok;
}

async function webhooks(io: Io, argv: string[]) {
  const { values } = parseArgs({ args: argv, options: COMMON, strict: true });
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const all = await unwrap(admin.GET("/api/v1/apps/api/webhooks"));
  if (!all.length) {
    line(io, "No subscriptions.");
    return EXIT.ok;
  }
  for (const s of all)
    line(
      io,
      `${s.id}  ${s.eventName.padEnd(18)} ${s.status.padEnd(8)} ${s.targetUrl}${s.disabledAt ? `  since ${s.disabledAt}: ${s.disabledReason}` : ""}`,
    );
  return EXIT.ok;
}

async function enable(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...COMMON, "recover-since": { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError("enable needs one subscription id");
  const recoverSince = instant("--recover-since", values["recover-since"]);
  const { baseUrl, tokens } = await settings(io, values);
  const admin = createAdminClient({ baseUrl, accessToken: await tokens.accessToken() });
  const result = await enableWebhook(admin, id, recoverSince ? { recoverSince } : {});
  line(
    io,
    `${id} is ${result.subscription.status}.${recoverSince ? ` Queued ${result.queued} failed or skipped deliveries again.` : ""}`,
  );
  return EXIT.ok;
}

const COMMANDS: Record<string, (io: Io, argv: string[]) => Promise<number>> = {
  login,
  listen: listenCommand,
  trigger,
  deliveries,
  redeliver,
  recover,
  webhooks,
  enable,
};

/** Runs one command line; answers the exit code (never throws). */
export async function run(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(USAGE);
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`Unknown command "${name}".\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  try {
    return await command(io, rest);
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`${(error as Error).message}\n(see merchant-platform --help)\n`);
      return EXIT.usage;
    }
    if (error instanceof PlatformError) {
      io.stderr.write(
        `The platform refused: ${error.code} (${error.status}) ${error.message}${error.requestId ? ` [request ${error.requestId}]` : ""}\n`,
      );
      return EXIT.failed;
    }
    io.stderr.write(`${(error as Error).message ?? error}\n`);
    return EXIT.failed;
  }
}
