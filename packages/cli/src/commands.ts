import { once } from "node:events";
import { parseArgs } from "node:util";
import {
  createAdminClient,
  createDeveloperClient,
  type ExportAll,
  type ExportResource,
  enableWebhook,
  forwardWebhook,
  listen,
  PlatformError,
  QUERY_BOUNDS,
  recoverWebhook,
  unwrap,
  type WebhookEventName,
} from "@merchant-platform/sdk";
import { checkPrivacyEndpoint } from "./check-privacy.ts";
import {
  type CliConfig,
  checkBaseUrl,
  configPath,
  readConfig,
  resolveConfig,
  TokenCommandError,
  type TokenSource,
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
  /** The --token-command failed, or printed no access token (its output is shown). */
  tokenCommand: 4,
  /** `check-privacy`: the endpoint accepted a bad signature, or refused a good one. */
  checkFailed: 5,
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
  deliveries [--failed] [--event <name>] [--limit <n>] [--session <listen session id>]
                       Recent deliveries: status, attempts, target, next retry; then the listen
                       sessions with what each streamed (--session: all of one session's).
  redeliver <delivery id>
                       Send a delivery again.
  events [--after <cursor>] [--types order.created,...] [--since <time>] [--failed] [--limit 100] [--follow] [--json]
                       The store's events in order (the event feed), with this app's deliveries;
                       --failed: those whose delivery failed. At most --limit (100; --follow: no
                       limit unless given). Prints the cursor to continue from.
  rotate-secret <subscription id>
                       Give a subscription a new signing secret (printed once). For a day (by default)
                       webhook-signature carries the old secret's signature too; x-webhook-signature
                       uses the new secret at once.
  recover <subscription id> --since <2h | 30m | 3d | 2026-11-26T10:00:00Z> [--until <…>]
                       Send once more every delivery of the subscription created since then that
                       failed (or was skipped while it was disabled), under its original
                       x-webhook-id. Each is recovered once, however often you run this.
  webhooks             The installation's subscriptions; disabled ones with when and why, and
                       each one's filter and field list when it has them.
  export <products|orders|customers|inventory> [--updated-since <2h | 2026-11-26T10:00:00Z>]
         [--location <loc_…>] > file.jsonl
                       Every record of the store as JSON Lines on stdout (an order with its line
                       items, a product with its variants, inventory: a stock level per variant
                       and location, --location: of one location), each as the list shows it; a
                       progress line on stderr. A dropped
                       connection is resumed where it stopped. Needs the read scope of the resource.
                       With MP_API_KEY and MP_API_SECRET (or --api-key, --api-secret) it uses that
                       developer key pair instead of the app's token.
  enable <subscription id> [--recover-since <2h | …>]
                       Make a disabled subscription active again (and recover since then).
  check-privacy <url> --secret <whsec_…> [--store <slug>] [--client-id <mpc_…>]
                       Check your privacy endpoint: POSTs customer.redact, customer.data_request
                       and shop.redact (marked test, made-up ids) signed with a wrong secret, which
                       must be answered 401, then with --secret (or MP_PRIVACY_SECRET), which must
                       be answered 2xx. Calls only <url>, never the platform.

Options for every command: --base-url, --token, --token-command (or MP_BASE_URL, MP_ACCESS_TOKEN,
MP_TOKEN_COMMAND; otherwise what login saved in ${configPath({})}); --verbose (-v) prints each call
to stderr with its status, the API version it was served at, and its deprecation when it has one.
Exit codes: 0 done, 1 the platform refused or is unreachable, 2 bad usage, 3 a forward failed (--fail-on-error),
4 the --token-command failed or printed no access token, 5 check-privacy found the endpoint wrong.
`;

const COMMON = {
  "base-url": { type: "string" },
  token: { type: "string" },
  "token-command": { type: "string" },
  help: { type: "boolean", short: "h" },
  verbose: { type: "boolean", short: "v" },
} as const;

function line(io: Io, text: string) {
  io.stdout.write(`${text}\n`);
}

/** The token source each command line used, to say so when the platform refuses its token. */
const sources = new WeakMap<Io, TokenSource>();

/**
 * A fetch that writes one line per call to stderr: the request, the status, the API version the
 * platform served it at (`Api-Version`), its deprecation when it has one, and the time taken.
 */
export function verboseFetch(io: Io, send: typeof fetch = fetch): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const started = performance.now();
    const response = await send(request);
    const url = new URL(request.url);
    const sunset = response.headers.get("sunset");
    io.stderr.write(
      `${request.method} ${url.pathname}${url.search} → ${response.status} · Api-Version ${response.headers.get("api-version") ?? "(none)"}${sunset ? ` (deprecated; sunset ${sunset})` : ""} · ${Math.round(performance.now() - started)} ms\n`,
    );
    return response;
  };
}

async function settings(
  io: Io,
  values: { "base-url"?: string; token?: string; "token-command"?: string; verbose?: boolean },
) {
  const flags: CliConfig = {
    ...(values["base-url"] ? { baseUrl: values["base-url"] } : {}),
    ...(values.token ? { accessToken: values.token } : {}),
    ...(values["token-command"] ? { tokenCommand: values["token-command"] } : {}),
  };
  const config = resolveConfig(flags, io.env, await readConfig(configPath(io.env)));
  if (!config.baseUrl) throw new UsageError("No platform URL: pass --base-url or run login.");
  const tokens = tokenSource(config);
  sources.set(io, tokens);
  const baseUrl = checkBaseUrl(config.baseUrl);
  /** What every client of the command is made with: where, and with --verbose the logging fetch. */
  const connection = { baseUrl, ...(values.verbose ? { fetch: verboseFetch(io) } : {}) };
  return { baseUrl, tokens, connection };
}

/**
 * That `baseUrl` is the platform: its liveness answer, without credentials (a wrong port is told
 * apart from a refused token). Throws a message for a person, exit code 1.
 */
async function checkPlatform(baseUrl: string): Promise<void> {
  const url = new URL("/healthz", baseUrl);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new Error(`Cannot reach the platform at ${baseUrl}: ${cause}`);
  }
  const body = (await response.json().catch(() => null)) as { data?: { status?: unknown } } | null;
  if (!response.ok || body?.data?.status !== "ok")
    throw new Error(
      `${baseUrl} is not the platform: GET /healthz answered HTTP ${response.status}${body ? "" : " without the platform's JSON"}. Is this your app's URL rather than the platform's?`,
    );
}

async function login(io: Io, argv: string[]) {
  const { values } = parseArgs({ args: argv, options: COMMON, strict: true });
  if (!values["base-url"] || (!values.token && !values["token-command"]))
    throw new UsageError("login needs --base-url and --token or --token-command.");
  // Everything is checked before anything is saved, each step saying what failed: the URL's form,
  // that the platform answers there, that the command prints a token, that the platform takes it.
  const config: CliConfig = {
    baseUrl: checkBaseUrl(values["base-url"]),
    ...(values.token ? { accessToken: values.token } : {}),
    ...(values["token-command"] ? { tokenCommand: values["token-command"] } : {}),
  };
  await checkPlatform(config.baseUrl!);
  const tokens = tokenSource(config);
  sources.set(io, tokens);
  // The token must work and carry manage_webhooks.
  const admin = createAdminClient({
    baseUrl: config.baseUrl!,
    accessToken: await tokens.accessToken(),
    ...(values.verbose ? { fetch: verboseFetch(io) } : {}),
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
  const { tokens, connection } = await settings(io, values);
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
    ...connection,
    tokens,
    ...(events ? { events } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  })) {
    if (message.type === "session") {
      if (message.secret) {
        line(io, `Ready. Forwarding ${message.events.join(", ")} to ${target}`);
        line(io, `Webhook signing secret for this session: ${message.secret}`);
        line(
          io,
          "(verify forwarded webhooks with it while you develop, as the SDK or a Standard Webhooks library takes it; it is shown only now)",
        );
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
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
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
    options: {
      ...COMMON,
      failed: { type: "boolean" },
      event: { type: "string" },
      limit: { type: "string" },
      session: { type: "string" },
    },
    strict: true,
  });
  // The deliveries list's page size as the document states it (the SDK generates it).
  const bounds = QUERY_BOUNDS.adminListDeliveries.limit;
  const limit = values.limit ? Number(values.limit) : bounds.default;
  if (!Number.isInteger(limit) || limit < bounds.minimum || limit > bounds.maximum)
    throw new UsageError(`--limit must be ${bounds.minimum} to ${bounds.maximum}`);
  if (values.session && values.failed)
    throw new UsageError("--session lists what a listen session streamed: it has no failed deliveries");
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  const event = values.event as WebhookEventName | undefined;
  const streamed = (e: {
    id: string;
    eventName: string;
    eventId: string;
    createdAt: string;
    test: boolean;
  }) =>
    `${e.id}  ${e.eventName.padEnd(18)} streamed to listen  ${e.eventId}  ${e.createdAt}${e.test ? "  [test]" : ""}`;

  if (values.session) {
    // Everything one listen session streamed, newest first.
    const rows = await unwrap(
      admin.GET("/api/v1/apps/api/webhooks/listen-sessions/{id}/events", {
        params: { path: { id: values.session }, query: { limit, ...(event ? { event } : {}) } },
      }),
    );
    if (!rows.length) line(io, "It streamed nothing (or only events past their retention).");
    for (const e of rows) line(io, streamed(e));
    return EXIT.ok;
  }

  const rows = await unwrap(
    admin.GET("/api/v1/apps/api/webhooks/deliveries", {
      params: {
        query: {
          limit,
          ...(values.failed ? { status: "failed" as const } : {}),
          ...(event ? { event } : {}),
        },
      },
    }),
  );
  if (!rows.length) line(io, values.failed ? "No failed deliveries." : "No deliveries.");
  for (const d of rows) {
    const last = d.attemptLog.at(-1);
    const next = d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : "";
    line(
      io,
      `${d.id}  ${d.eventName.padEnd(18)} ${d.status.padEnd(9)} ${d.attempts} attempt(s)  ${last?.statusCode ?? last?.error ?? "-"}  ${d.targetUrl}${next}${d.test ? "  [test]" : ""}`,
    );
  }
  // What listen sessions streamed is not a delivery (no status, no retries: the local answer was
  // printed by listen), so it is listed apart, and not with --failed.
  if (values.failed) return EXIT.ok;
  const sessions = await unwrap(
    admin.GET("/api/v1/apps/api/webhooks/listen-sessions", {
      params: { query: { limit: Math.min(limit, 10), ...(event ? { event } : {}) } },
    }),
  );
  if (!sessions.length) return EXIT.ok;
  line(io, "");
  line(io, "Listen sessions (what each streamed to listen, which forwarded it to your local URL):");
  for (const session of sessions) {
    line(
      io,
      `${session.id}  ${session.state.padEnd(12)} since ${session.createdAt}  ${session.events.join(", ")}`,
    );
    for (const e of session.streamed) line(io, `  ${streamed(e)}`);
    if (session.moreStreamed)
      line(io, `  … more: merchant-platform deliveries --session ${session.id} --limit 100`);
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
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  const created = await unwrap(
    admin.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", { params: { path: { id } } }),
  );
  line(io, `Queued ${created.id} (a new delivery of ${id}).`);
  return EXIT.ok;
}

async function events(io: Io, argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...COMMON,
      after: { type: "string" },
      types: { type: "string" },
      since: { type: "string" },
      failed: { type: "boolean" },
      follow: { type: "boolean" },
      json: { type: "boolean" },
      limit: { type: "string" },
    },
    strict: true,
  });
  if (values.after !== undefined && !/^[0-9]{1,15}$/.test(values.after))
    throw new UsageError("--after takes a cursor printed by this command (digits)");
  if (values.limit !== undefined && !/^[1-9][0-9]{0,5}$/.test(values.limit))
    throw new UsageError("--limit takes a number of events from 1 to 999999");
  // A page a terminal can hold by default; following the feed runs until stopped unless limited.
  const limit = values.limit !== undefined ? Number(values.limit) : values.follow ? Infinity : 100;
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  let last: string | undefined = values.after;
  let count = 0;
  for await (const e of admin.events.list({
    ...(values.after !== undefined ? { after: values.after } : {}),
    ...(values.types ? { types: values.types.split(",").map((t) => t.trim()) } : {}),
    ...(values.since ? { since: values.since } : {}),
    ...(values.failed ? { failedOnly: true } : {}),
    ...(values.follow ? { follow: true } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  })) {
    count++;
    last = e.cursor;
    if (values.json) line(io, JSON.stringify(e));
    else {
      const deliveries = e.deliveries
        .map((d) => `${d.status}${d.lastError ? ` (${d.lastError})` : ""}`)
        .join(", ");
      line(
        io,
        `${e.cursor.padStart(8)}  ${e.createdAt}  ${e.type.padEnd(18)} ${e.resource.type}/${e.resource.id}  seq ${e.sequence}${deliveries ? `  deliveries: ${deliveries}` : ""}${e.test ? "  [test]" : ""}`,
      );
    }
    if (count >= limit) break;
  }
  // On stderr, so `--json > events.jsonl` keeps only events.
  io.stderr.write(
    count === 0 ? "No events.\n" : `${count} event(s). Continue after them with --after ${last}\n`,
  );
  return EXIT.ok;
}

const EXPORTS: readonly ExportResource[] = ["products", "orders", "customers", "inventory"];

async function exportCommand(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...COMMON,
      "updated-since": { type: "string" },
      location: { type: "string" },
      "api-key": { type: "string" },
      "api-secret": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const resource = positionals[0] as ExportResource | undefined;
  if (!resource || positionals.length > 1 || !EXPORTS.includes(resource))
    throw new UsageError(`export needs one of ${EXPORTS.join(", ")}, e.g. export products > products.jsonl`);
  const updatedSince = instant("--updated-since", values["updated-since"]);
  if (values.location !== undefined && resource !== "inventory")
    throw new UsageError("--location is for export inventory: the stock levels at one location.");
  const apiKey = values["api-key"] ?? io.env.MP_API_KEY;
  const apiSecret = values["api-secret"] ?? io.env.MP_API_SECRET;
  if (Boolean(apiKey) !== Boolean(apiSecret))
    throw new UsageError(
      "A developer key needs both --api-key and --api-secret (or MP_API_KEY and MP_API_SECRET).",
    );
  let client: { exportAll: ExportAll };
  if (apiKey && apiSecret) {
    const config = resolveConfig(
      values["base-url"] ? { baseUrl: values["base-url"] } : {},
      io.env,
      await readConfig(configPath(io.env)),
    );
    if (!config.baseUrl) throw new UsageError("No platform URL: pass --base-url or run login.");
    client = createDeveloperClient({
      baseUrl: checkBaseUrl(config.baseUrl),
      apiKey,
      apiSecret,
      ...(values.verbose ? { fetch: verboseFetch(io) } : {}),
    });
  } else {
    const { tokens, connection } = await settings(io, values);
    client = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  }
  const tty = Boolean(io.stderr.isTTY);
  const started = performance.now();
  let count = 0;
  let asOf = "";
  let shown = 0;
  const progress = (final = false) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(count / seconds) : 0;
    const text = `${resource}: ${count.toLocaleString("en-US")} exported · ${rate.toLocaleString("en-US")}/s · ${seconds.toFixed(1)} s`;
    // In place on a terminal; otherwise a line every 10 s and at the end, so logs stay short.
    if (tty) io.stderr.write(`\r\x1b[2K${text}${final ? "\n" : ""}`);
    else if (final || seconds - shown >= 10) {
      shown = seconds;
      io.stderr.write(`${text}\n`);
    }
  };
  const ticker = setInterval(() => progress(), tty ? 250 : 1000);
  try {
    for await (const record of client.exportAll(resource, {
      ...(updatedSince ? { updatedSince } : {}),
      ...(values.location ? { locationId: values.location } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      onStart: (info) => {
        asOf = info.asOf;
      },
    })) {
      count++;
      // Respects a slow reader of stdout (a pipe into another program) instead of buffering.
      if (io.stdout.write(`${JSON.stringify(record)}\n`) === false) await once(io.stdout, "drain");
    }
  } finally {
    clearInterval(ticker);
  }
  progress(true);
  if (asOf) {
    const next = new Date(Date.parse(asOf) - 5 * 60_000).toISOString();
    io.stderr.write(
      `Snapshot as of ${asOf}. For the next incremental export: --updated-since ${next} (5 minutes earlier, so a change committed during this export is not missed).\n`,
    );
  }
  return EXIT.ok;
}

async function rotateSecret(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: COMMON,
    allowPositionals: true,
    strict: true,
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError("rotate-secret needs one subscription id");
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  // The SDK sends an Idempotency-Key with the POST, the same on each retry: a retry whose answer
  // was lost gets this same secret back instead of rotating a second time.
  const rotated = await unwrap(
    admin.POST("/api/v1/apps/api/webhooks/{id}/secret", { params: { path: { id } } }),
  );
  line(io, `New signing secret for ${rotated.id}: ${rotated.secret}`);
  line(io, "(shown only now: store it where your endpoint reads its secret)");
  line(
    io,
    `x-webhook-signature uses it from now on. Until ${rotated.previousSecretExpiresAt}, webhook-signature also carries the old secret's signature, so a Standard Webhooks receiver still holding the old secret keeps verifying while you switch.`,
  );
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
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
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
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  const all = await unwrap(admin.GET("/api/v1/apps/api/webhooks"));
  if (!all.length) {
    line(io, "No subscriptions.");
    return EXIT.ok;
  }
  for (const s of all) {
    line(
      io,
      `${s.id}  ${s.eventName.padEnd(18)} ${s.status.padEnd(8)} ${s.targetUrl}${s.disabledAt ? `  since ${s.disabledAt}: ${s.disabledReason}` : ""}`,
    );
    // What the subscription takes of its events, when it narrows them (issue 21).
    if (s.filter !== null) line(io, `    filter: ${s.filter}`);
    if (s.fields !== null) line(io, `    fields: ${s.fields.join(", ")} (and id)`);
  }
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
  const { tokens, connection } = await settings(io, values);
  const admin = createAdminClient({ ...connection, accessToken: await tokens.accessToken() });
  const result = await enableWebhook(admin, id, recoverSince ? { recoverSince } : {});
  line(
    io,
    `${id} is ${result.subscription.status}.${recoverSince ? ` Queued ${result.queued} failed or skipped deliveries again.` : ""}`,
  );
  return EXIT.ok;
}

async function checkPrivacy(io: Io, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      help: { type: "boolean", short: "h" },
      secret: { type: "string" },
      store: { type: "string" },
      "client-id": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const url = positionals[0];
  if (!url || positionals.length > 1)
    throw new UsageError(
      "check-privacy needs your privacy endpoint's URL, e.g. check-privacy https://app.example.com/privacy",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`check-privacy needs an absolute http(s) URL, got "${url}"`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new UsageError(`check-privacy needs an http(s) URL, got "${url}"`);
  const secret = values.secret ?? io.env.MP_PRIVACY_SECRET;
  if (!secret || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret))
    throw new UsageError(
      "check-privacy needs the privacy endpoint's secret (whsec_…, shown when you declared the endpoint or rotated it): --secret or MP_PRIVACY_SECRET",
    );
  const checks = await checkPrivacyEndpoint({
    url,
    secret,
    store: values.store ?? "example-store",
    clientId: values["client-id"] ?? "mpc_checkprivacy0000000000",
  });
  for (const c of checks)
    line(
      io,
      `${c.ok ? "ok  " : "FAIL"} ${c.topic.padEnd(22)} ${c.signature} signature → ${c.status ?? c.error} (expected ${c.expected})`,
    );
  const failed = checks.filter((c) => !c.ok);
  if (failed.length === 0) {
    line(io, "The endpoint refuses bad signatures and accepts good ones.");
    return EXIT.ok;
  }
  if (failed.some((c) => c.signature === "bad" && c.status !== null && c.status < 300))
    io.stderr.write(
      "The endpoint accepted a request with a wrong signature: anyone could make it erase data. Verify every request (verifyWebhook) and answer 401 when it fails.\n",
    );
  io.stderr.write(`${failed.length} of ${checks.length} checks failed.\n`);
  return EXIT.checkFailed;
}

const COMMANDS: Record<string, (io: Io, argv: string[]) => Promise<number>> = {
  login,
  listen: listenCommand,
  trigger,
  deliveries,
  redeliver,
  events,
  export: exportCommand,
  "rotate-secret": rotateSecret,
  recover,
  webhooks,
  enable,
  "check-privacy": checkPrivacy,
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
    // `code` is not always a string: a child process's error carries its exit status there.
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
      io.stderr.write(`${(error as Error).message}\n(see merchant-platform --help)\n`);
      return EXIT.usage;
    }
    if (error instanceof TokenCommandError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT.tokenCommand;
    }
    if (error instanceof PlatformError) {
      io.stderr.write(
        `The platform refused: ${error.code} (${error.status}) ${error.message}${error.requestId ? ` [request ${error.requestId}]` : ""}\n`,
      );
      const command = sources.get(io)?.command;
      if (command && error.status === 401)
        io.stderr.write(
          `The token came from --token-command (${command}): it printed a token the platform does not take (expired, revoked, or for another platform or store).\n`,
        );
      return EXIT.failed;
    }
    io.stderr.write(`${(error as Error).message ?? error}\n`);
    return EXIT.failed;
  }
}
