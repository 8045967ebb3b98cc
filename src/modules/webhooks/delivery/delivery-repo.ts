import { sql } from "kysely";
import {
  DeliveryStatus,
  EVENT,
  type EventDataKind,
  eraseRecord,
  SubscriptionStatus,
} from "../../../contracts/index.ts";
import type { Db, Executor } from "../../../db/client.ts";
import type { AppMetadataJson, WebhookDelivery } from "../../../db/schema.ts";
import { randomBase62 } from "../../../lib/crypto.ts";
import { newId } from "../../../lib/ids.ts";
import { eventDataFor } from "../../app-metadata/app-metadata.ts";
import { EVENTS_CHANNEL } from "../../events/events-repo.ts";
import type { EventVersion } from "../../versions/event-versions.ts";
import { projectFields } from "../filters/filter-expression.ts";
import { createFilterCache } from "../filters/subscription-view.ts";
import { runsOfFailures } from "./failure-runs.ts";

/** `last_error` of a delivery recorded while its subscription was disabled. */
export const SKIPPED_ERROR = "subscription disabled";

export function newDeliveryId(): string {
  return newId("delivery");
}

/** What a worker needs to make one attempt. */
export interface ClaimedDelivery {
  store_id: string;
  id: string;
  /** Sent as x-webhook-id: the delivery's own id, or for a recovered delivery its original's. */
  webhook_id: string;
  event_name: string;
  subscription_id: string;
  target_url: string;
  target_host: string;
  body: string;
  attempts: number;
  lease_token: string;
  /** The subscription's signing secret, still encrypted. */
  secret_ciphertext: string;
  /** Its secret before the last rotation, still encrypted (signs too while the overlap lasts). */
  previous_secret_ciphertext: string | null;
  /** When the subscription's secret was last rotated. */
  secret_rotated_at: Date | null;
  /** A test event's delivery: sent with `x-webhook-test: true`. */
  test: boolean;
  /** The API version it is sent at: its subscription's now (`Api-Version`, the body's `data`). */
  api_version: string;
  /**
   * The version its stored body is labelled with (its subscription's when it was made; null: made
   * before versions, the first). Bodies are stored with the newest shape of their data and
   * rendered at `api_version` when sent (versions/event-versions.ts `render`).
   */
  body_api_version: string | null;
}

/**
 * The body of every delivery of an event to one app (with the `x-webhook-*` headers), the same bytes on every attempt
 * and stream. `sequence` is the event's insertion number (`events.seq`): strictly increasing
 * across the events of one resource, so a receiver drops an update older than the last one it
 * applied. App metadata is per app (issue 20): the event keeps every app's pairs beside the
 * payload (`events.app_metadata`), and the body for `appId` carries that app's pairs only, as
 * `data.metadata`. Events without the column (other kinds, older events) are sent as they were.
 * A subscription's `fields` (issue 21) keep only those fields of `data`, and `id`: the body is
 * stored with the delivery and signed at each attempt, so the signatures cover exactly this, and
 * a retry, redelivery or recovery sends the same bytes.
 */
export function webhookBody(
  event: {
    id: string;
    seq: number;
    topic: string;
    created_at: Date;
    payload: unknown;
    test?: boolean;
    app_metadata?: AppMetadataJson | null;
  },
  slug: string,
  at: EventVersion,
  appId?: string,
  fields: readonly string[] | null = null,
): string {
  // The app's own metadata first, then the version's shape, then the subscription's fields.
  const withOwn = at.data(event.topic, eventDataFor(event, appId));
  return JSON.stringify({
    id: event.id,
    event: event.topic,
    apiVersion: at.apiVersion,
    createdAt: event.created_at.toISOString(),
    sequence: Number(event.seq),
    store: { slug },
    data: fields === null ? withOwn : projectFields(withOwn, fields),
    ...(event.test ? { test: true } : {}),
  });
}

/**
 * A stored body (webhookBody) with its `data` erased by the contract's rule for the event's kind of
 * data (contracts/erasure.ts), `recordId` being the event's record: what every later attempt,
 * redelivery and recovery of it sends once that record's customer is erased. Only `data` changes,
 * in place: the envelope and the order of its keys stay, and a body cut to a subscription's
 * `fields` stays cut (the rule adds no field).
 */
export function erasedWebhookBody(body: string, kind: EventDataKind, recordId: string): string {
  const parsed = JSON.parse(body) as { data?: unknown };
  return JSON.stringify({ ...parsed, data: eraseRecord(kind, parsed.data, recordId) });
}

/** How many more deliveries a claim may take for each target host (the worker's per-host room). */
export interface ClaimRoom {
  /** Deliveries in all. */
  limit: number;
  /** Room of the hosts the worker already holds deliveries for; a host missing here has `otherHosts`. */
  hosts: ReadonlyMap<string, number>;
  otherHosts: number;
}

/** One finished attempt, to be recorded (see completeMany). */
export interface Completion {
  delivery: Pick<ClaimedDelivery, "store_id" | "id" | "subscription_id" | "attempts" | "lease_token">;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  next:
    | { status: typeof DeliveryStatus.delivered | typeof DeliveryStatus.failed }
    | { status: typeof DeliveryStatus.pending; at: Date };
  now: Date;
}

const pgArray = (values: readonly unknown[]) => values as unknown as string;

/** A subscription whose unbroken run of failures is older than the disable window (see completeMany). */
export interface FailingSubscription {
  store_id: string;
  subscription_id: string;
  failing_since: Date;
}

/** A subscription to disable (see disableSubscriptions). */
export interface DisableRequest {
  store_id: string;
  subscription_id: string;
  /** The last error, shown as `disabledReason` and in `webhook.disabled`. */
  reason: string;
  /** A 410 Gone: disabled at once, whatever the run of failures. */
  gone: boolean;
  /** When the failed attempt that asks for it started. */
  failedAt: Date;
}

/**
 * The delivery engine's storage: fan-out of outbox events to deliveries, claiming due deliveries
 * with a lease (several workers, never two on one delivery), recording outcomes fenced by the
 * lease token, and the sweeps that keep the 8-attempt cap true even across crashes. Every
 * operation is a fixed number of statements for any number of rows: the engine waits on the
 * database, so round trips per delivery are what bound it.
 */
export function createDeliveryRepo(
  db: Db,
  deps: {
    /** Bodies are stored labelled with their subscription's API version (modules/versions). */
    events: { stored(apiVersion: string): EventVersion; at(apiVersion: string): EventVersion };
  },
) {
  // Subscription filters, parsed once per text (each dispatch would otherwise parse every one).
  const filters = createFilterCache();
  return {
    /**
     * Turns up to `limit` undispatched events into deliveries, one per matching active
     * subscription created before the event; answers how many events this call dispatched, the
     * deliveries it claimed on the way, and the hosts of those it inserted but could not claim
     * (their room was full: they are due now).
     *
     * Two statements and no transaction of their own, so two round trips and one commit: this is
     * the path from an event's commit to its first attempt. The first reads the events and their
     * subscriptions without locking anything (a lock would make the read a writing transaction
     * with a commit of its own). The second does all the writing at once: it locks the events
     * that are still undispatched (SKIP LOCKED: another worker's are left to it), inserts the
     * deliveries of those events only, and marks them dispatched. So an event is dispatched by
     * exactly one statement, and a delivery exists exactly when its event is marked; a worker that
     * read the same events meanwhile inserts nothing. The unique key still makes any retry harmless.
     *
     * With `claim`, new deliveries within its room are inserted already claimed by this worker
     * (attempts 1, leased until now + leaseMs), exactly as `claim` would have: the first attempt
     * then needs no further round trip and no second commit.
     */
    async dispatchEvents(
      now: Date,
      limit: number,
      claim?: { room: ClaimRoom; leaseMs: number },
    ): Promise<{ events: number; claimed: ClaimedDelivery[]; unclaimedHosts: string[] }> {
      // Events and their matching subscriptions in one statement (a LEFT JOIN keeps the events
      // nobody subscribed to: they are marked dispatched too). The due events are an array
      // (`seq = ANY(ARRAY(…))`), not a CTE joined to events: the array is computed once and
      // looked up by primary key, whatever the statistics say. Joined, a generic plan estimated
      // `LIMIT $1` at a tenth of the table and hashed all of `events` on every dispatch (8 ms at
      // 20,000 events against 0.25), and with the statistics of an empty table it re-ran the
      // due-events query for every event row (42 s statements in the benchmark).
      const rows = await sql<{
        seq: number;
        id: string;
        store_id: string;
        topic: string;
        created_at: Date;
        payload: unknown;
        test: boolean;
        app_metadata: AppMetadataJson | null;
        erased: boolean;
        slug: string;
        sub_id: string | null;
        installation_id: string | null;
        app_id: string | null;
        target_url: string | null;
        secret_ciphertext: string | null;
        previous_secret_ciphertext: string | null;
        secret_rotated_at: Date | null;
        sub_status: SubscriptionStatus | null;
        filter: string | null;
        fields: string[] | null;
        sub_api_version: string | null;
      }>`
          SELECT e.seq, e.id, e.store_id, e.topic, e.created_at, e.payload, e.test, e.app_metadata,
                 e.redacted_at IS NOT NULL AS erased, st.slug,
                 s.id AS sub_id, s.installation_id, s.app_id, s.target_url, s.secret_ciphertext,
                 s.previous_secret_ciphertext, s.secret_rotated_at, s.status AS sub_status, s.filter, s.fields,
                 s.api_version AS sub_api_version
            FROM events e
            JOIN stores st ON st.id = e.store_id
            LEFT JOIN (
              webhook_subscriptions s
              JOIN installations i
                ON i.store_id = s.store_id AND i.id = s.installation_id AND i.status = 'active'
            ) ON s.store_id = e.store_id
                 AND s.event_name = e.topic
                 AND s.status IN ('active', 'disabled')
                 AND s.created_at <= e.created_at
                 AND (e.installation_id IS NULL OR s.installation_id = e.installation_id)
           WHERE e.seq = ANY(ARRAY(SELECT seq FROM events WHERE dispatched_at IS NULL ORDER BY seq LIMIT ${limit}))
           ORDER BY e.seq, s.created_at, s.id`.execute(db);
      if (rows.rows.length === 0) return { events: 0, claimed: [], unclaimedHosts: [] };
      const seqs = [...new Set(rows.rows.map((r) => r.seq))];
      // Events already erased when read (their bodies below are rendered from the erased payload).
      const erasedWhenRead = [...new Set(rows.rows.filter((r) => r.erased).map((r) => r.seq))];
      const token = randomBase62(16);
      const leaseUntil = claim ? new Date(now.getTime() + claim.leaseMs) : null;
      const room = new Map(claim?.room.hosts);
      let left = claim?.room.limit ?? 0;
      // One body per event, app and field list: each app's carries its own metadata, each
      // subscription's the fields it asked for (webhookBody).
      const bodies = new Map<string, string>();
      const d = {
        seq: [] as number[],
        id: [] as string[],
        store_id: [] as string[],
        event_id: [] as string[],
        event_name: [] as string[],
        subscription_id: [] as string[],
        installation_id: [] as string[],
        app_id: [] as string[],
        target_url: [] as string[],
        target_host: [] as string[],
        body: [] as string[],
        leased: [] as boolean[],
        test: [] as boolean[],
        api_version: [] as string[],
      };
      const secrets = new Map<
        string,
        Pick<ClaimedDelivery, "secret_ciphertext" | "previous_secret_ciphertext" | "secret_rotated_at">
      >();
      for (const r of rows.rows) {
        if (r.sub_id === null) continue;
        // The subscription's filter, over the data as its app sees it (its own metadata): an
        // event it does not match makes no delivery, so nothing is sent, logged, skipped or
        // counted as a failure. The event is still marked dispatched below (`seqs` has it). A
        // test event is sent whatever the filter says: the developer asked for it.
        // At the subscription's version: what its filter names is what its bodies carry.
        const at = deps.events.at(r.sub_api_version!);
        if (
          r.filter !== null &&
          !r.test &&
          !filters.receives(r.filter, at.data(r.topic, eventDataFor(r, r.app_id!)))
        )
          continue;
        const bodyKey = `${r.seq} ${r.app_id} ${r.sub_api_version} ${r.fields?.join(",") ?? "*"}`;
        let body = bodies.get(bodyKey);
        if (body === undefined) {
          // Whole bodies are stored in the newest shape (rendered when sent, at the subscription's
          // version then); a body of some fields keeps the fields its version names, so it is
          // rendered first (rendering it again when sent changes nothing: a version's record
          // transform leaves a record already in its shape alone).
          body = webhookBody(
            r,
            r.slug,
            r.fields === null ? deps.events.stored(r.sub_api_version!) : at,
            r.app_id!,
            r.fields,
          );
          bodies.set(bodyKey, body);
        }
        const host = new URL(r.target_url!).host;
        const hostRoom = room.get(host) ?? claim?.room.otherHosts ?? 0;
        // A disabled subscription's delivery is recorded as skipped, never claimed.
        const leased = left > 0 && hostRoom > 0 && r.sub_status === SubscriptionStatus.active;
        if (leased) {
          left--;
          room.set(host, hostRoom - 1);
        }
        const id = newDeliveryId();
        secrets.set(id, {
          secret_ciphertext: r.secret_ciphertext!,
          previous_secret_ciphertext: r.previous_secret_ciphertext,
          secret_rotated_at: r.secret_rotated_at,
        });
        d.seq.push(r.seq);
        d.id.push(id);
        d.store_id.push(r.store_id);
        d.event_id.push(r.id);
        d.event_name.push(r.topic);
        d.subscription_id.push(r.sub_id);
        d.installation_id.push(r.installation_id!);
        d.app_id.push(r.app_id!);
        d.target_url.push(r.target_url!);
        d.target_host.push(host);
        d.body.push(body);
        d.leased.push(leased);
        d.test.push(r.test);
        d.api_version.push(r.sub_api_version!);
      }
      // One statement: the events locked, the deliveries of the locked events (a retried dispatch
      // conflicts and inserts nothing) and the events marked dispatched. Only rows this statement
      // inserted come back, so a claimed row is always one this worker owns.
      //
      // The subscriptions read above are checked again here, under a share lock, in (store_id, id)
      // order as an uninstall locks them (stopInstallationWebhooks): an uninstall that stopped them
      // first is seen (the lock re-reads the row), one that comes later waits for this statement's
      // commit and then cancels what it inserted. Without it, a delivery read before an uninstall
      // and inserted after it would reach the app after app/uninstalled. The same lock decides
      // between active and disabled: a subscription disabled meanwhile gets a skipped delivery
      // (recorded, finished, never claimed), whatever the read above saw.
      //
      // An event whose customer was erased after the read above (its payload erased and its
      // `redacted_at` set by a transaction that committed in between) is not dispatched here: its
      // bodies were rendered from the payload before the erasure, and inserting them would store
      // a copy the erasure never saw. It stays undispatched, and the next dispatch renders it from
      // the erased payload. One the erasure still holds is skipped by the lock.
      const written = await sql<{
        id: string | null;
        leased: boolean | null;
        skipped: boolean | null;
        events: number;
      }>`
          WITH locked AS (
            SELECT seq FROM events
             WHERE seq = ANY(${pgArray(seqs)}::bigint[]) AND dispatched_at IS NULL
               AND (redacted_at IS NULL OR seq = ANY(${pgArray(erasedWhenRead)}::bigint[]))
               FOR UPDATE SKIP LOCKED
          ), live AS (
            SELECT s.store_id, s.id, s.status = 'active' AS sends FROM webhook_subscriptions s
             WHERE (s.store_id, s.id) IN (
                     SELECT * FROM unnest(${pgArray(d.store_id)}::text[], ${pgArray(d.subscription_id)}::text[]))
               AND s.status IN ('active', 'disabled')
             ORDER BY s.store_id, s.id
               FOR SHARE
          ), ins AS (
            INSERT INTO webhook_deliveries
              (store_id, id, event_id, event_name, subscription_id, installation_id, app_id, target_url,
               target_host, body, status, attempts, next_attempt_at, lease_until, lease_token, created_at, updated_at,
               test, completed_at, last_error, api_version)
            SELECT n.store_id, n.id, n.event_id, n.event_name, n.subscription_id, n.installation_id, n.app_id,
                   n.target_url, n.target_host, n.body,
                   CASE WHEN l.sends THEN 'pending' ELSE 'skipped' END,
                   CASE WHEN n.leased AND l.sends THEN 1 ELSE 0 END, ${now},
                   CASE WHEN n.leased AND l.sends THEN ${leaseUntil}::timestamptz END,
                   CASE WHEN n.leased AND l.sends THEN ${token} END, ${now}, ${now}, n.test,
                   CASE WHEN NOT l.sends THEN ${now}::timestamptz END,
                   CASE WHEN NOT l.sends THEN ${SKIPPED_ERROR} END, n.api_version
              FROM unnest(${pgArray(d.seq)}::bigint[], ${pgArray(d.store_id)}::text[], ${pgArray(d.id)}::text[],
                          ${pgArray(d.event_id)}::text[], ${pgArray(d.event_name)}::text[],
                          ${pgArray(d.subscription_id)}::text[], ${pgArray(d.installation_id)}::text[],
                          ${pgArray(d.app_id)}::text[], ${pgArray(d.target_url)}::text[],
                          ${pgArray(d.target_host)}::text[], ${pgArray(d.body)}::text[], ${pgArray(d.leased)}::boolean[],
                          ${pgArray(d.test)}::boolean[], ${pgArray(d.api_version)}::text[])
                   AS n(seq, store_id, id, event_id, event_name, subscription_id, installation_id, app_id,
                        target_url, target_host, body, leased, test, api_version)
              JOIN live l ON l.store_id = n.store_id AND l.id = n.subscription_id
             WHERE n.seq IN (SELECT seq FROM locked)
            ON CONFLICT (store_id, subscription_id, event_id) WHERE redelivery_of IS NULL DO NOTHING
            RETURNING id, lease_token, status <> 'pending' AS skipped
          ), marked AS (
            UPDATE events SET dispatched_at = ${now} WHERE seq IN (SELECT seq FROM locked) RETURNING seq
          )
          SELECT ins.id, ins.lease_token IS NOT NULL AS leased, ins.skipped, (SELECT count(*)::int FROM marked) AS events
            FROM (SELECT 1) AS one LEFT JOIN ins ON true`.execute(db);
      const inserted = written.rows.filter((r) => r.id !== null) as Array<{
        id: string;
        leased: boolean;
        skipped: boolean;
      }>;
      const byIndex = new Map(d.id.map((id, i) => [id, i]));
      const unclaimedHosts = new Set<string>();
      const claimed: ClaimedDelivery[] = [];
      for (const { id, leased, skipped } of inserted) {
        const i = byIndex.get(id)!;
        if (skipped) continue;
        if (!leased) {
          unclaimedHosts.add(d.target_host[i]!);
          continue;
        }
        claimed.push({
          store_id: d.store_id[i]!,
          id,
          webhook_id: id,
          event_name: d.event_name[i]!,
          subscription_id: d.subscription_id[i]!,
          target_url: d.target_url[i]!,
          target_host: d.target_host[i]!,
          body: d.body[i]!,
          api_version: d.api_version[i]!,
          body_api_version: d.api_version[i]!,
          attempts: 1,
          lease_token: token,
          ...secrets.get(id)!,
          test: d.test[i]!,
        });
      }
      return { events: written.rows[0]?.events ?? 0, claimed, unclaimedHosts: [...unclaimedHosts] };
    },

    /**
     * Claims due deliveries for `leaseMs`: at most `room.limit` in all and, per target host, at
     * most its room (so no host gets more than the worker can run for it). The attempt counter is
     * raised at claim time, so an attempt whose worker dies still counts and no delivery can be
     * attempted more than `maxAttempts` times.
     */
    async claim(
      now: Date,
      room: ClaimRoom,
      leaseMs: number,
      maxAttempts: number,
    ): Promise<ClaimedDelivery[]> {
      if (room.limit <= 0) return [];
      const token = randomBase62(16);
      const leaseUntil = new Date(now.getTime() + leaseMs);
      const full = [...room.hosts].filter(([, n]) => n <= 0).map(([host]) => host);
      const open = [...room.hosts].filter(([, n]) => n > 0);
      // The candidates are locked (SKIP LOCKED) a few times over the limit, then cut to each host's
      // room; the locks of the rows not taken end with this statement. One statement on purpose:
      // the row locks live only as long as the UPDATE.
      const result = await sql<ClaimedDelivery>`
        WITH candidates AS (
          SELECT store_id, id, target_host, next_attempt_at FROM webhook_deliveries
           WHERE status = 'pending'
             AND next_attempt_at <= ${now}
             AND (lease_until IS NULL OR lease_until <= ${now})
             AND attempts < ${maxAttempts}
             ${full.length ? sql`AND target_host <> ALL(${pgArray(full)}::text[])` : sql``}
           ORDER BY next_attempt_at
           LIMIT ${Math.min(room.limit * 4, 2000)}
           FOR UPDATE SKIP LOCKED
        ), ranked AS (
          SELECT c.store_id, c.id, c.next_attempt_at,
                 row_number() OVER (PARTITION BY c.target_host ORDER BY c.next_attempt_at, c.id) AS n,
                 coalesce(h.room, ${room.otherHosts}) AS room
            FROM candidates c
            LEFT JOIN unnest(${pgArray(open.map(([h]) => h))}::text[], ${pgArray(open.map(([, n]) => n))}::int[])
                 AS h(host, room) ON h.host = c.target_host
        ), due AS (
          SELECT store_id, id FROM ranked WHERE n <= room ORDER BY next_attempt_at LIMIT ${room.limit}
        )
        UPDATE webhook_deliveries AS d
           SET attempts = d.attempts + 1, lease_until = ${leaseUntil}, lease_token = ${token}, updated_at = ${now}
          FROM due, webhook_subscriptions AS s
         WHERE d.store_id = due.store_id AND d.id = due.id
           AND s.store_id = d.store_id AND s.id = d.subscription_id
        RETURNING d.store_id, d.id, coalesce(d.webhook_id, d.id) AS webhook_id, d.event_name, d.subscription_id,
                  d.target_url, d.target_host, d.body, d.attempts, d.lease_token, s.secret_ciphertext,
                  s.previous_secret_ciphertext, s.secret_rotated_at, d.test, s.api_version,
                  d.api_version AS body_api_version`.execute(db);
      return result.rows;
    },

    /**
     * Gives back claimed deliveries that were never attempted (the worker is stopping, or one
     * waited too long for a free slot): the attempt counter goes back down and the lease ends, so
     * no attempt is spent on them. Fenced by the lease token like a completion.
     */
    async release(
      deliveries: ReadonlyArray<Pick<ClaimedDelivery, "store_id" | "id" | "lease_token">>,
      now: Date,
    ) {
      if (deliveries.length === 0) return 0;
      const result = await sql`
        UPDATE webhook_deliveries AS d
           SET attempts = d.attempts - 1, lease_until = NULL, lease_token = NULL, updated_at = ${now}
          FROM unnest(${pgArray(deliveries.map((x) => x.store_id))}::text[], ${pgArray(deliveries.map((x) => x.id))}::text[],
                      ${pgArray(deliveries.map((x) => x.lease_token))}::text[]) AS r(store_id, id, lease_token)
         WHERE d.store_id = r.store_id AND d.id = r.id AND d.lease_token = r.lease_token`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },

    /**
     * Records finished attempts and moves their deliveries on, any number in one statement.
     * Fenced: a delivery whose lease was lost (another worker took over after it expired, or it
     * was cancelled) is left alone, though its attempt is still logged. Answers the ids whose
     * outcome was applied, and the subscriptions of the batch whose unbroken run of failures began
     * at or before `failingBefore` (to be disabled: disableSubscriptions).
     *
     * The same statement keeps each subscription's run of failures (webhook_subscription_failures):
     * a failed attempt starts a run unless one is going on, a success ends it. A batch that only
     * succeeded for subscriptions that are not failing writes nothing there (the delete finds no
     * row), so the healthy path pays one index probe per subscription of the batch, not a write.
     *
     * Fenced by the lease token alone: only a pending delivery holds one (a check constraint,
     * migration 20261126_0140), so `status = 'pending'` would add nothing but a trap. With it in
     * the WHERE, the planner could reach the rows through the partial index of pending
     * deliveries, and with statistics taken before a backlog (few pending) it did: each batch of
     * 27 read all 8,583 pending index entries and 4,749 rows (7 of its 9 ms) instead of 27
     * primary-key probes, so recording got slower the longer the backlog. `release` likewise.
     *
     * One statement, so one round trip (no BEGIN, no COMMIT of its own). The commit is
     * synchronous on purpose: with `synchronous_commit = off` a server crash (or an immediate
     * shutdown) loses the last commits that reported success, and the worker has already let go
     * of them; the deliveries then stay leased until the lease ends (60 s by default) and are sent
     * to the receiver a second time. Nothing would vanish, but every outage would repeat attempts
     * that were answered. The worker never waits for this commit (a slot is free once the receiver
     * has answered; outcomes are recorded in the background, the next batch collecting while one
     * is written), so its flush costs the database a WAL flush per batch, not throughput.
     */
    async completeMany(
      items: readonly Completion[],
      failingBefore: Date = new Date(0),
    ): Promise<{ applied: Set<string>; overdue: FailingSubscription[] }> {
      if (items.length === 0) return { applied: new Set(), overdue: [] };
      const col = <T>(f: (c: Completion) => T) => pgArray(items.map(f));
      const runs = runsOfFailures(items);
      const run = <T>(f: (r: (typeof runs)[number]) => T) => pgArray(runs.map(f));
      const result = await sql<{
        id: string | null;
        store_id: string | null;
        subscription_id: string | null;
        failing_since: Date | null;
      }>`
        WITH input AS (
          SELECT * FROM unnest(
            ${col((c) => c.delivery.store_id)}::text[], ${col((c) => c.delivery.id)}::text[],
            ${col((c) => c.delivery.lease_token)}::text[], ${col((c) => c.delivery.attempts)}::int[],
            ${col((c) => c.startedAt.toISOString())}::timestamptz[], ${col((c) => Math.round(c.durationMs))}::int[],
            ${col((c) => c.statusCode)}::int[], ${col((c) => c.error)}::text[], ${col((c) => c.responseBody)}::text[],
            ${col((c) => c.next.status)}::text[],
            ${col((c) => (c.next.status === DeliveryStatus.pending ? c.next.at : c.now).toISOString())}::timestamptz[],
            ${col((c) => c.now.toISOString())}::timestamptz[]
          ) AS t(store_id, id, lease_token, attempt, started_at, duration_ms, status_code, error, response_body,
                 next_status, next_at, now)
        ), runs AS (
          SELECT * FROM unnest(
            ${run((r) => r.store_id)}::text[], ${run((r) => r.subscription_id)}::text[],
            ${run((r) => r.success?.toISOString() ?? null)}::timestamptz[],
            ${run((r) => r.failure?.toISOString() ?? null)}::timestamptz[]
          ) AS r(store_id, subscription_id, success_at, failure_at)
        ), logged AS (
          INSERT INTO webhook_attempts
            (store_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_body)
          SELECT store_id, id, attempt, started_at, duration_ms, status_code, error, response_body FROM input
          ON CONFLICT DO NOTHING
        ), healed AS (
          -- A success ends the run that began before it (a run another worker saw begin after it stays).
          DELETE FROM webhook_subscription_failures f USING runs r
           WHERE f.store_id = r.store_id AND f.subscription_id = r.subscription_id
             AND r.failure_at IS NULL AND f.failing_since <= r.success_at
        ), failing AS (
          -- A failure after this batch's last success (if any) begins a run, unless one is going on
          -- that began after that success. The row is written on every failing batch, so that it
          -- answers when the run began (whether the window has passed).
          INSERT INTO webhook_subscription_failures AS f (store_id, subscription_id, failing_since)
          SELECT store_id, subscription_id, failure_at FROM runs WHERE failure_at IS NOT NULL
          ON CONFLICT (store_id, subscription_id) DO UPDATE
             SET failing_since = CASE
                   WHEN f.failing_since > coalesce(
                          (SELECT r.success_at FROM runs r
                            WHERE r.store_id = excluded.store_id AND r.subscription_id = excluded.subscription_id),
                          '-infinity')
                   THEN least(f.failing_since, excluded.failing_since)
                   ELSE excluded.failing_since END
          RETURNING f.store_id, f.subscription_id, f.failing_since
        ), applied AS (
          UPDATE webhook_deliveries AS d
             SET status = i.next_status, next_attempt_at = i.next_at, lease_until = NULL, lease_token = NULL,
                 last_status_code = i.status_code, last_error = i.error, updated_at = i.now,
                 completed_at = CASE WHEN i.next_status = 'pending' THEN NULL ELSE i.now END
            FROM input i
           WHERE d.store_id = i.store_id AND d.id = i.id AND d.lease_token = i.lease_token
          RETURNING d.id
        )
        SELECT id, NULL AS store_id, NULL AS subscription_id, NULL::timestamptz AS failing_since FROM applied
        UNION ALL
        SELECT NULL, store_id, subscription_id, failing_since FROM failing
         WHERE failing_since <= ${failingBefore}`.execute(db);
      const applied = new Set<string>();
      const overdue: FailingSubscription[] = [];
      for (const r of result.rows) {
        if (r.id !== null) applied.add(r.id);
        else
          overdue.push({
            store_id: r.store_id!,
            subscription_id: r.subscription_id!,
            failing_since: r.failing_since!,
          });
      }
      return { applied, overdue };
    },

    /**
     * Disables the subscriptions asked for that are still active and still due for it: a 410
     * Gone at once, the others only while their run of failures began at or before
     * `failingBefore` (a success meanwhile ended it). In one statement, for each one disabled:
     * its status, `disabled_at` and `disabled_reason`; its pending deliveries end (`skipped` if
     * never attempted, else `failed`; an attempt in flight finds its lease gone); and a
     * `webhook.disabled` event for its installation is recorded and announced. The update takes
     * the subscription rows in (store_id, id) order, as an uninstall does, and only one statement
     * can move a row from active, so the event is recorded once. Answers what it disabled.
     */
    async disableSubscriptions(
      requests: readonly DisableRequest[],
      now: Date,
      failingBefore: Date,
    ): Promise<Array<{ store_id: string; subscription_id: string; reason: string }>> {
      if (requests.length === 0) return [];
      // One request per subscription: a 410 wins, then the latest failure's reason.
      const bySub = new Map<string, DisableRequest>();
      for (const r of requests) {
        const key = `${r.store_id} ${r.subscription_id}`;
        const seen = bySub.get(key);
        if (!seen || (r.gone && !seen.gone) || (r.gone === seen.gone && r.failedAt >= seen.failedAt))
          bySub.set(key, r);
      }
      const list = [...bySub.values()];
      const col = <T>(f: (r: DisableRequest) => T) => pgArray(list.map(f));
      const eventIds = list.map(() => newId("event"));
      const result = await sql<{ store_id: string; subscription_id: string; reason: string }>`
        WITH input AS (
          SELECT * FROM unnest(
            ${col((r) => r.store_id)}::text[], ${col((r) => r.subscription_id)}::text[], ${col((r) => r.reason)}::text[],
            ${col((r) => r.gone)}::boolean[], ${col((r) => r.failedAt.toISOString())}::timestamptz[],
            ${pgArray(eventIds)}::text[]
          ) AS i(store_id, subscription_id, reason, gone, failed_at, event_id)
        ), target AS (
          SELECT s.store_id, s.id, i.reason, i.event_id,
                 least(f.failing_since, i.failed_at) AS failing_since
            FROM webhook_subscriptions s
            JOIN input i ON i.store_id = s.store_id AND i.subscription_id = s.id
            LEFT JOIN webhook_subscription_failures f ON f.store_id = s.store_id AND f.subscription_id = s.id
           WHERE s.status = 'active' AND (i.gone OR f.failing_since <= ${failingBefore})
           ORDER BY s.store_id, s.id
             FOR NO KEY UPDATE OF s
        ), disabled AS (
          UPDATE webhook_subscriptions s
             SET status = 'disabled', disabled_at = ${now}, disabled_reason = t.reason
            FROM target t
           WHERE s.store_id = t.store_id AND s.id = t.id
          RETURNING s.store_id, s.id, s.installation_id, s.event_name, s.target_url, t.reason, t.event_id, t.failing_since
        ), parked AS (
          UPDATE webhook_deliveries d
             SET status = CASE WHEN d.attempts = 0 THEN 'skipped' ELSE 'failed' END,
                 lease_until = NULL, lease_token = NULL, updated_at = ${now}, completed_at = ${now},
                 last_error = ${SKIPPED_ERROR}
            FROM disabled x
           WHERE d.store_id = x.store_id AND d.subscription_id = x.id AND d.status = 'pending'
        ), recorded AS (
          INSERT INTO events (id, store_id, topic, resource_id, payload, created_at, installation_id)
          SELECT x.event_id, x.store_id, ${EVENT.webhookDisabled}, x.id,
                 jsonb_build_object(
                   'subscriptionId', x.id, 'eventName', x.event_name, 'targetUrl', x.target_url,
                   'reason', x.reason,
                   'failingSince', to_char(x.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   'disabledAt', ${now.toISOString()}::text),
                 ${now}, x.installation_id
            FROM disabled x
        )
        SELECT x.store_id, x.id AS subscription_id, x.reason, pg_notify(${EVENTS_CHANNEL}, x.store_id)::text AS notified
          FROM disabled x`.execute(db);
      return result.rows.map(({ store_id, subscription_id, reason }) => ({
        store_id,
        subscription_id,
        reason,
      }));
    },

    /** Deliveries whose last allowed attempt died with its worker: failed for good once the lease is over. */
    async failExhausted(now: Date, maxAttempts: number): Promise<number> {
      const result = await db
        .updateTable("webhook_deliveries")
        .set({
          status: DeliveryStatus.failed,
          lease_until: null,
          lease_token: null,
          updated_at: now,
          completed_at: now,
          last_error: "attempt abandoned",
        })
        .where("status", "=", DeliveryStatus.pending)
        .where("attempts", ">=", maxAttempts)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * When the next delivery that no worker holds falls due (for the worker's sleep), or null.
     * Leased rows are skipped: an attempt in flight is not "due", and counting it would wake an
     * idle worker every few milliseconds until it finishes. Leases that expire are found by the
     * poll.
     */
    async nextDueAt(now: Date): Promise<Date | null> {
      const row = await db
        .selectFrom("webhook_deliveries")
        .select("next_attempt_at")
        .where("status", "=", DeliveryStatus.pending)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
        .orderBy("next_attempt_at")
        .limit(1)
        .executeTakeFirst();
      return row?.next_attempt_at ?? null;
    },

    async stats(now: Date) {
      const pending = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
        .where("status", "=", DeliveryStatus.pending)
        .executeTakeFirstOrThrow();
      const undispatched = await db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("dispatched_at", "is", null)
        .executeTakeFirstOrThrow();
      const oldest = pending.oldest as Date | null;
      return {
        pending: Number(pending.n),
        undispatchedEvents: Number(undispatched.n),
        oldestPendingAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
      };
    },
  };
}
export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;

/** Inside an uninstall: what happens to the installation's webhooks (app/uninstalled first, then the subscriptions stop). */
export async function stopInstallationWebhooks(
  tx: Executor,
  input: {
    storeId: string;
    installationId: string;
    event: { id: string; seq: number; created_at: Date; payload: unknown };
    slug: string;
    now: Date;
    /** Each subscription's body is stored labelled with its API version. */
    events: { stored(apiVersion: string): EventVersion };
  },
): Promise<WebhookDelivery[]> {
  const { storeId, installationId, now } = input;
  // Stop the subscriptions first, locking them in (store_id, id) order as a dispatch does: a
  // dispatch that holds them finishes first (and what it inserted is cancelled below, by a
  // statement that starts after it committed); one that comes later finds them stopped.
  // Disabled subscriptions stop too; one of app/uninstalled gets its delivery recorded as skipped
  // (nothing is sent to a disabled subscription), as any other event would.
  const stopped = await sql<{
    id: string;
    app_id: string;
    target_url: string;
    event_name: string;
    was_active: boolean;
    filter: string | null;
    fields: string[] | null;
    api_version: string;
  }>`
    WITH mine AS (
      SELECT store_id, id, status = 'active' AS was_active FROM webhook_subscriptions
       WHERE store_id = ${storeId} AND installation_id = ${installationId} AND status IN ('active', 'disabled')
       ORDER BY store_id, id
         FOR NO KEY UPDATE
    )
    UPDATE webhook_subscriptions s SET status = 'stopped', stopped_at = ${now}
      FROM mine WHERE s.store_id = mine.store_id AND s.id = mine.id
    RETURNING s.id, s.app_id, s.target_url, s.event_name, mine.was_active, s.filter, s.fields, s.api_version`.execute(
    tx,
  );
  // Attempts already in flight may still land; app/uninstalled waits until their leases are over,
  // so it is the last thing the app receives for this installation.
  const inflight = await tx
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.max("lease_until").as("until"))
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("status", "=", DeliveryStatus.pending)
    .where("lease_until", ">", now)
    .executeTakeFirst();
  const notBefore = (inflight?.until as Date | null | undefined) ?? now;
  await tx
    .updateTable("webhook_deliveries")
    .set({
      status: DeliveryStatus.cancelled,
      lease_until: null,
      lease_token: null,
      updated_at: now,
      completed_at: now,
      last_error: "app uninstalled",
    })
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("status", "=", DeliveryStatus.pending)
    .execute();
  // A filter and a field list apply to app/uninstalled as to any event (dispatchEvents).
  const filters = createFilterCache(16);
  const rows = stopped.rows
    .filter((s) => s.event_name === EVENT.appUninstalled && filters.receives(s.filter, input.event.payload))
    .map((s) => ({
      store_id: storeId,
      id: newDeliveryId(),
      event_id: input.event.id,
      event_name: EVENT.appUninstalled,
      subscription_id: s.id,
      installation_id: installationId,
      app_id: s.app_id,
      target_url: s.target_url,
      target_host: new URL(s.target_url).host,
      body: webhookBody(
        {
          id: input.event.id,
          seq: input.event.seq,
          topic: EVENT.appUninstalled,
          created_at: input.event.created_at,
          payload: input.event.payload,
        },
        input.slug,
        input.events.stored(s.api_version),
        undefined,
        s.fields,
      ),
      api_version: s.api_version,
      status: s.was_active ? DeliveryStatus.pending : DeliveryStatus.skipped,
      next_attempt_at: notBefore,
      created_at: now,
      updated_at: now,
      ...(s.was_active ? {} : { completed_at: now, last_error: SKIPPED_ERROR }),
    }));
  const created = rows.length
    ? await tx.insertInto("webhook_deliveries").values(rows).returningAll().execute()
    : [];
  return created;
}
