import type { ServerResponse } from "node:http";
import {
  ListenEndReason as End,
  EVENT,
  LISTEN_END_REASONS,
  type ListenEndReason,
} from "../../../contracts/index.ts";
import type { Clock } from "../../../lib/clock.ts";
import { derivedId } from "../../../lib/ids.ts";
import type { FeedEvent, FeedRepo, FeedSequencer } from "../../events/feed-repo.ts";
import type { EventVersion } from "../../versions/event-versions.ts";
import { webhookBody } from "../delivery/delivery-repo.ts";
import { webhookHeaders } from "../delivery/signing.ts";
import type { ListenRepo, ListenSession } from "./listen-repo.ts";
import type { Wakeups } from "./wakeups.ts";

/** A comment line this often keeps proxies from closing an idle stream, and tells the session it is alive. */
export const HEARTBEAT_MS = 15_000;
/** Events streamed per read at most. */
const BATCH = 100;
/** Feed positions one read looks through at most (positions are dense, so this bounds the rows read). */
const SPAN = 1000;

/**
 * The id an event carries when streamed to a listen session (`x-webhook-id`, `webhook-id`): the
 * same whenever the session streams it again after a reconnect, and what the delivery log lists.
 */
export function listenDeliveryId(sessionId: string, eventId: string): string {
  return derivedId("delivery", sessionId, eventId);
}

/** One line of Server-Sent Events. */
export function sse(fields: { id?: string; event?: string; data?: unknown; comment?: string }): string {
  if (fields.comment !== undefined) return `: ${fields.comment}\n\n`;
  return `${fields.id !== undefined ? `id: ${fields.id}\n` : ""}${fields.event ? `event: ${fields.event}\n` : ""}data: ${JSON.stringify(fields.data)}\n\n`;
}

/** What a stream needs to know about the connection that opened it. */
export interface StreamInput {
  raw: ServerResponse;
  session: ListenSession;
  /** The session's signing secret, opened. */
  secret: string;
  /** This connection's ownership token of the session. */
  connection: string;
  slug: string;
  /** The event names this connection carries (the session's, within the presenting token's scopes). */
  topics: readonly string[];
  /** The bearer token that opened the stream, checked again before every write. */
  token: string;
  /** Aborted when the client goes, another local connection takes the session over, or the server closes. */
  signal: AbortSignal;
}

/**
 * The loop of one listen stream: read the store's feed after the session's position (events this
 * installation may see, of the connection's topics), write them as signed webhooks, record the
 * position, wait for the store's next event or the heartbeat. Ends after `app/uninstalled`, when
 * the token that opened it stops being valid (checked before every write, through the access-token
 * cache, so a revocation that has answered is never outlived by more than one heartbeat), when
 * another connection takes the session over, or when the client or the server goes.
 */
export function createListenStreamer(deps: {
  feed: Pick<FeedRepo, "readForInstallation" | "uninstalledAfter">;
  sequencer: Pick<FeedSequencer, "sequence">;
  repo: Pick<ListenRepo, "advance">;
  wakeups: Pick<Wakeups, "wait" | "closed" | "ready" | "generation">;
  clock: Clock;
  /** The token's expiry (ms) while it is valid; throws once it is not (expired, revoked, uninstalled). */
  tokenExpiry(token: string): Promise<number>;
  /** Events at the session's API version (modules/versions). */
  events: { at(apiVersion: string): EventVersion };
}) {
  const { clock } = deps;

  /**
   * Until the client has read what was written (true), or the heartbeat passed (false), or
   * something happened that the loop must look at (an event, an abort: true).
   */
  async function drained(raw: ServerResponse, storeId: string, signal: AbortSignal): Promise<boolean> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const done = new Promise<boolean>((resolve) => {
      const onDrain = () => resolve(true);
      raw.once("drain", onDrain);
      stop.signal.addEventListener("abort", () => {
        raw.off("drain", onDrain);
        resolve(true);
      });
    });
    try {
      return await Promise.race([done, deps.wakeups.wait(storeId, HEARTBEAT_MS, stop.signal)]);
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
    }
  }

  /**
   * Whether the token that opened the stream still does: its expiry, or why the stream ends.
   * authenticate() only says "invalid"; a token past the expiry it had is expired, any other
   * refusal (revoked, its family revoked, the app uninstalled) is a revocation.
   */
  async function checkToken(
    token: string,
    knownExpiry: number,
  ): Promise<{ end: ListenEndReason } | { expiresAt: number }> {
    const now = clock.now().getTime();
    try {
      const expiresAt = await deps.tokenExpiry(token);
      return expiresAt <= now ? { end: End.token_expired } : { expiresAt };
    } catch {
      return { end: knownExpiry && knownExpiry <= now ? End.token_expired : End.token_revoked };
    }
  }

  /** An event as the SSE message a listen client receives: the delivery's headers and body. */
  function message(input: StreamInput, event: FeedEvent): string {
    const body = webhookBody(
      {
        id: event.id,
        seq: event.seq,
        topic: event.topic,
        created_at: event.created_at,
        payload: event.payload,
        test: event.test,
        app_metadata: event.app_metadata,
      },
      input.slug,
      deps.events.at(input.session.api_version),
      input.session.app_id,
    );
    const ts = Math.floor(clock.now().getTime() / 1000);
    const id = listenDeliveryId(input.session.id, event.id);
    const headers = webhookHeaders({
      event: event.topic,
      deliveryId: id,
      attempt: 1,
      timestampSeconds: ts,
      body,
      secret: input.secret,
      test: event.test,
      apiVersion: input.session.api_version,
    });
    return sse({
      id: `${input.session.id}.${event.position}`,
      event: "webhook",
      data: { id, event: event.topic, headers, body },
    });
  }

  return async function stream(input: StreamInput): Promise<ListenEndReason | "closed"> {
    const { raw, session, signal } = input;
    const storeId = session.store_id;
    // `destroyed`: a client gone before its close listener was attached is still gone.
    const stopping = () => signal.aborted || deps.wakeups.closed || raw.writableEnded || raw.destroyed;
    const end = (reason: ListenEndReason) => {
      if (!raw.writableEnded)
        raw.write(sse({ event: "end", data: { reason, message: LISTEN_END_REASONS[reason].label } }));
      return reason;
    };
    let position = Number(session.position);
    let expiresAt = 0;
    let heartbeatDue = false;
    // Notifications flow before the first read: an event committed right after it wakes the stream.
    await deps.wakeups.ready();
    while (!stopping()) {
      // Before every write: nothing leaves once the token that opened the stream is refused.
      const token = await checkToken(input.token, expiresAt);
      if ("end" in token) {
        // An uninstall revokes the token in the transaction that records app/uninstalled: that
        // event is still the stream's last message (what came before it is dropped, as an
        // uninstall cancels the subscriptions' pending deliveries).
        await deps.sequencer.sequence(storeId);
        const last = await deps.feed.uninstalledAfter(storeId, session.installation_id, position);
        if (!last || stopping()) return end(token.end);
        // The session's record of what it streamed is a range of the feed: it takes in the
        // app/uninstalled only when no event of the session's was dropped before it (the usual
        // case: the uninstall is the next thing the stream meets).
        const dropped = await deps.feed.readForInstallation({
          storeId,
          installationId: session.installation_id,
          topics: input.topics,
          after: position,
          span: last.position - position - 1,
          limit: 1,
        });
        if (!dropped.events.length)
          await deps.repo.advance(storeId, session.id, input.connection, last.position, clock.now());
        raw.write(message(input, last));
        return end(End.uninstalled);
      }
      expiresAt = token.expiresAt;
      if (raw.writableNeedDrain) {
        // A client that stopped reading holds the rest in the feed, not in this process's
        // memory; its session stays alive (and owned) on the heartbeat meanwhile.
        if (heartbeatDue) {
          if (!(await deps.repo.advance(storeId, session.id, input.connection, position, clock.now())))
            return end(End.superseded);
          heartbeatDue = false;
        }
        if (!(await drained(raw, storeId, signal))) heartbeatDue = true;
        continue;
      }
      const seen = deps.wakeups.generation(storeId);
      await deps.sequencer.sequence(storeId);
      const { events, readTo, more } = await deps.feed.readForInstallation({
        storeId,
        installationId: session.installation_id,
        topics: input.topics,
        after: position,
        span: SPAN,
        limit: BATCH,
      });
      if (stopping()) break; // Gone or shut down meanwhile: the position stays where it was.
      let chunk = "";
      let uninstalled = false;
      let to = readTo;
      for (const event of events) {
        chunk += message(input, event);
        if (event.topic === EVENT.appUninstalled && !event.test) {
          uninstalled = true;
          to = event.position;
          break;
        }
      }
      position = to;
      // Recorded with what is written and with the heartbeat, not for every read that only
      // passed other topics' events (a resume reads those again, at most one span per read).
      // Recorded before the write: whoever reads the session once the client has an event (the
      // Admin API, the order's Webhooks panel) sees it among what the session streamed, and a
      // resume still starts from the client's Last-Event-ID, so a write lost after the record
      // loses nothing.
      if (chunk || heartbeatDue) {
        // Also the ownership check: a newer connection to the session (on another process) wins
        // before this one writes anything more.
        if (!(await deps.repo.advance(storeId, session.id, input.connection, position, clock.now())))
          return end(End.superseded);
        if (chunk) raw.write(chunk);
        else raw.write(sse({ comment: "ping" }));
        heartbeatDue = false;
      }
      if (uninstalled) return end(End.uninstalled);
      if (more || raw.writableNeedDrain) continue;
      // Until the store's next event, the heartbeat, or the token's expiry, whichever is first.
      const wait = Math.min(HEARTBEAT_MS, Math.max(0, expiresAt - clock.now().getTime()));
      const woken = await deps.wakeups.wait(storeId, wait, signal, seen);
      if (!woken) heartbeatDue = true;
    }
    return "closed";
  };
}
export type ListenStreamer = ReturnType<typeof createListenStreamer>;
