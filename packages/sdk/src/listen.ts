import { errorFromResponse, PlatformError } from "./errors.ts";
import { API_VERSION } from "./generated/api-version.ts";
import type { TokenManager } from "./oauth.ts";

/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** Parses a text/event-stream body into messages (comments and `retry:` are skipped). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | null = null;
  let event = "message";
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(buffer[newline] === "\r" ? newline + 2 : newline + 1);
      newline = buffer.search(/\r?\n/);
      if (line === "") {
        if (data.length) yield { id, event, data: data.join("\n") };
        event = "message";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  }
}

/** What `listen` yields. */
export type ListenMessage =
  | { type: "session"; sessionId: string; events: string[]; resumed: boolean; secret?: string }
  | {
      type: "webhook";
      id: string;
      event: string;
      headers: Record<string, string>;
      body: string;
      /** This message's place in the session: pass it as `lastEventId` to resume after it later. */
      lastEventId: string;
    }
  | { type: "reconnecting"; error: unknown; attempt: number }
  | {
      type: "end";
      /** Why: `uninstalled`, `token_expired`, `token_revoked` or `superseded` (do not resume this session). */
      reason: string;
      /** The same in words, to show a person. */
      message?: string;
    };

export interface ListenOptions {
  baseUrl: string;
  /** The installation's token (scope `manage_webhooks`): a manager (refreshed as needed) or a fixed one. */
  tokens: TokenManager | { accessToken(): Promise<string> };
  /** Event names to stream; default every one the token's scopes allow. */
  events?: string[];
  /** Resume a session (`<sessionId>.<n>`, the last id seen). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnect waits: 1 s doubling to 30 s. Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
  /** The version the session's bodies are rendered at (`Api-Version`); default `API_VERSION`. */
  apiVersion?: string;
}

/**
 * The installation's events as they happen (`GET /api/v1/apps/api/webhooks/stream`), as signed
 * webhooks ready to forward. Reconnects by itself after a dropped connection or a restart of the
 * platform, resuming from the last message (`Last-Event-ID`), so nothing that happened meanwhile
 * is lost; ends (`{ type: "end", reason }`) after `app/uninstalled`, when the token is revoked or
 * expires, or when another connection resumed the session, or when `signal` aborts. Refusals
 * (401 after a refresh, 403, 404) throw `PlatformError`.
 */
export async function* listen(options: ListenOptions): AsyncGenerator<ListenMessage> {
  const send = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let lastId = options.lastEventId ?? null;
  let failures = 0;
  let refreshed = false;
  while (!options.signal?.aborted) {
    const url = new URL("/api/v1/apps/api/webhooks/stream", options.baseUrl);
    if (options.events?.length) url.searchParams.set("events", options.events.join(","));
    let response: Response;
    const token = await options.tokens.accessToken();
    try {
      response = await send(url, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${token}`,
          "api-version": options.apiVersion ?? API_VERSION,
          ...(lastId ? { "last-event-id": lastId } : {}),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) return;
      failures++;
      yield { type: "reconnecting", error, attempt: failures };
      await sleep(Math.min(30_000, 1000 * 2 ** (failures - 1)));
      continue;
    }
    if (response.status === 401 && !refreshed && "refresh" in options.tokens) {
      await response.body?.cancel();
      await (options.tokens as TokenManager).refresh(token);
      refreshed = true;
      continue;
    }
    if (response.status >= 500 || response.status === 429) {
      const error = await errorFromResponse(response);
      failures++;
      yield { type: "reconnecting", error, attempt: failures };
      await sleep(
        Math.max(Math.min(30_000, 1000 * 2 ** (failures - 1)), (error.retryAfterSeconds ?? 0) * 1000),
      );
      continue;
    }
    if (!response.ok || !response.body) throw await errorFromResponse(response);
    refreshed = false;
    try {
      for await (const message of readSse(response.body)) {
        failures = 0;
        if (message.id) lastId = message.id;
        const data = JSON.parse(message.data) as Record<string, unknown>;
        if (message.event === "session")
          yield { type: "session", ...(data as Omit<Extract<ListenMessage, { type: "session" }>, "type">) };
        else if (message.event === "webhook")
          yield {
            type: "webhook",
            ...(data as Omit<Extract<ListenMessage, { type: "webhook" }>, "type" | "lastEventId">),
            lastEventId: message.id ?? lastId ?? "",
          };
        else if (message.event === "end") {
          yield {
            type: "end",
            reason: String(data.reason ?? "ended"),
            ...(typeof data.message === "string" ? { message: data.message } : {}),
          };
          return;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (error instanceof PlatformError || error instanceof SyntaxError) throw error;
      failures++;
      yield { type: "reconnecting", error, attempt: failures };
      await sleep(Math.min(30_000, 1000 * 2 ** (failures - 1)));
      continue;
    }
    if (options.signal?.aborted) return;
    // The platform closed the stream without `end` (a restart): resume.
    failures++;
    yield { type: "reconnecting", error: new Error("the stream closed"), attempt: failures };
    await sleep(Math.min(30_000, 1000 * 2 ** (failures - 1)));
  }
}

/**
 * Sends one streamed webhook to a local URL exactly as the platform would have: the same headers
 * (signature included) and the same bytes. Answers the local status and how long it took.
 */
export async function forwardWebhook(
  message: Extract<ListenMessage, { type: "webhook" }>,
  target: string,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<{ status: number; durationMs: number }> {
  const started = performance.now();
  const response = await (options.fetch ?? fetch)(target, {
    method: "POST",
    headers: message.headers,
    body: message.body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  await response.arrayBuffer();
  return { status: response.status, durationMs: performance.now() - started };
}
