import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { EVENT } from "../src/contracts/index.ts";
import { createEventRecorder } from "../src/modules/events/events-repo.ts";
import { createFeedRepo, createFeedSequencer } from "../src/modules/events/feed-repo.ts";
import { createTestContext, merchantWithStore, TEST_DATABASE_URL, type TestContext } from "./harness.ts";

/**
 * The store's event feed is gap-free: positions are given after commit, one sequencer at a time
 * per store, so a reader that pages "after n" while writers commit out of order never skips an
 * event, and the events of one resource keep their order.
 */
describe("event feed: positions given after commit", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it("8 writers commit 2,000 events out of order while a reader pages the feed: every event once, in order", async () => {
    const { store } = await merchantWithStore(ctx.app);
    const storeId = store.id;
    const db = ctx.platform.db;
    const recordEvent = createEventRecorder({ clock: ctx.clock });
    const feed = createFeedRepo(db);
    // A sequencer per "process": several of them race for the store's head, as API and worker
    // processes would.
    const sequencers = [createFeedSequencer({ repo: feed }), createFeedSequencer({ repo: feed })];
    const WRITERS = 8;
    const PER_WRITER = 250;
    let writing = true;

    const writer = async (w: number) => {
      for (let i = 0; i < PER_WRITER; i++) {
        // Each writer owns 5 resources and changes them in turn, so each resource's events come
        // one after another from committed transactions, as row locks make them.
        const resource = `res_${w}_${i % 5}`;
        await db.transaction().execute(async (tx) => {
          await recordEvent(tx, {
            storeId,
            topic: EVENT.productUpdated,
            resourceId: resource,
            payload: { i },
          });
          // On PostgreSQL, transactions stay open a little while others insert and commit, so
          // commit order differs from insert order.
          if (TEST_DATABASE_URL && i % 3 === w % 3) await sql`SELECT pg_sleep(0.002)`.execute(tx);
        });
      }
    };

    const seen: Array<{ position: number; resource: string; seq: number }> = [];
    const reader = async () => {
      let after = 0;
      for (let round = 0; ; round++) {
        const done = !writing;
        await sequencers[round % 2]!.sequence(storeId);
        for (;;) {
          const { rows } = await sql<{ position: number; resource_id: string; seq: number }>`
            SELECT feed_position AS position, resource_id, seq FROM events
             WHERE store_id = ${storeId} AND feed_position > ${after}
             ORDER BY feed_position LIMIT 100`.execute(db);
          for (const r of rows)
            seen.push({ position: Number(r.position), resource: r.resource_id, seq: Number(r.seq) });
          if (rows.length) after = Number(rows.at(-1)!.position);
          if (rows.length < 100) break;
        }
        if (done) return;
        await new Promise((r) => setImmediate(r));
      }
    };
    const reading = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    await reading;

    assert.equal(seen.length, WRITERS * PER_WRITER, "every committed event, once");
    assert.deepEqual(
      seen.map((e) => e.position),
      Array.from({ length: seen.length }, (_, i) => i + 1),
      "positions 1..n, read in order, none skipped",
    );
    const last = new Map<string, number>();
    for (const e of seen) {
      assert.ok((last.get(e.resource) ?? 0) < e.seq, `${e.resource}: its events in the order they happened`);
      last.set(e.resource, e.seq);
    }
    assert.equal(await feed.head(storeId), seen.length);
    assert.equal(await feed.hasUnsequenced(storeId), false);
  });

  it("the sweep finds each store with unnumbered events once, up to its limit, and none once numbered", async () => {
    const db = ctx.platform.db;
    const feed = createFeedRepo(db);
    const sequencer = createFeedSequencer({ repo: feed });
    const recordEvent = createEventRecorder({ clock: ctx.clock });
    const numberAll = async () => {
      for (const storeId of await feed.storesWithUnsequenced(1000)) await sequencer.sequence(storeId);
    };
    const [a, b, c] = await Promise.all(
      [1, 2, 3].map(async () => (await merchantWithStore(ctx.app)).store.id),
    );
    await numberAll();
    assert.deepEqual(await feed.storesWithUnsequenced(10), []);
    for (const [storeId, n] of [
      [a, 3],
      [c, 2],
    ] as const)
      for (let i = 0; i < n; i++)
        await db.transaction().execute((tx) =>
          recordEvent(tx, {
            storeId: storeId!,
            topic: EVENT.productUpdated,
            resourceId: `prod_${i}`,
            payload: {},
          }),
        );
    // In the database's collation order, which need not be JavaScript's.
    assert.deepEqual((await feed.storesWithUnsequenced(10)).sort(), [a, c].sort(), `not ${b}, each once`);
    const limited = await feed.storesWithUnsequenced(1);
    assert.equal(limited.length, 1, "at most the limit");
    assert.ok([a, c].includes(limited[0]), limited[0]);
    await sequencer.sequence(a!);
    assert.deepEqual(await feed.storesWithUnsequenced(10), [c]);
    await numberAll();
    assert.deepEqual(await feed.storesWithUnsequenced(10), []);
  });
});
