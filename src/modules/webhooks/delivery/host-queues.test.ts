import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { claimedDelivery } from "../../../../test/delivery-fixtures.ts";
import { createHostQueues, MAX_QUEUED, QUEUE_BUDGET_MS } from "./host-queues.ts";

let seq = 0;
const delivery = (host: string) =>
  claimedDelivery({
    id: `whd_${++seq}`,
    webhook_id: `whd_${seq}`,
    target_url: `https://${host}/hook`,
    target_host: host,
  });
const many = (host: string, n: number) => Array.from({ length: n }, () => delivery(host));

describe("host queues: room for the next claim", () => {
  it("an empty worker may hold concurrency + MAX_QUEUED, and 2 x perTarget for a host it holds nothing of", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 3, startWindowMs: 1000 });
    const room = q.room();
    assert.equal(room.limit, 10 + MAX_QUEUED);
    assert.equal(room.otherHosts, 6);
    assert.equal(room.hosts.size, 0);
  });

  it("a held host's room is its slots plus its queue room minus what it holds", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 3, startWindowMs: 1000 });
    q.hold(many("a.example", 4), 0);
    const room = q.room();
    // No duration known yet: the queue room is perTarget.
    assert.equal(room.hosts.get("a.example"), 3 + 3 - 4);
    assert.equal(room.limit, 10 + MAX_QUEUED - 4);
    assert.equal(q.heldTotal, 4);
  });

  it("a fast host gets more queue room (QUEUE_BUDGET_MS of its slots' work), capped at MAX_QUEUED; a slow one its slots", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 2, startWindowMs: 1000 });
    q.hold([delivery("fast.example"), delivery("slow.example")], 0);
    q.startNext();
    q.startNext();
    q.finished("fast.example", 10);
    q.finished("slow.example", 5000);
    q.hold([delivery("fast.example"), delivery("slow.example")], 0);
    const room = q.room();
    assert.equal(room.hosts.get("fast.example"), 2 + (2 * QUEUE_BUDGET_MS) / 10 - 1);
    assert.equal(room.hosts.get("slow.example"), 2 + 2 - 1);
    const wide = createHostQueues({ concurrency: 10, perTargetConcurrency: 4, startWindowMs: 1000 });
    wide.hold([delivery("instant.example")], 0);
    wide.startNext();
    wide.finished("instant.example", 0);
    wide.hold([delivery("instant.example")], 0);
    assert.equal(wide.room().hosts.get("instant.example"), 4 + MAX_QUEUED - 1);
  });
});

describe("host queues: which delivery starts next", () => {
  it("never more than perTarget in flight to one host, nor more than concurrency in all", () => {
    const q = createHostQueues({ concurrency: 3, perTargetConcurrency: 2, startWindowMs: 1000 });
    q.hold(many("a.example", 5), 0);
    assert.ok(q.startNext());
    assert.ok(q.startNext());
    assert.equal(q.startNext(), undefined, "a.example's two slots are taken");
    q.hold(many("b.example", 5), 1);
    assert.equal(q.startNext()?.delivery.target_host, "b.example");
    assert.equal(q.startNext(), undefined, "three in flight: concurrency reached");
    assert.equal(q.running, 3);
    q.finished("a.example", 5);
    assert.equal(q.startNext()?.delivery.target_host, "a.example", "a freed slot takes a.example's oldest");
  });

  it("fair across hosts: the oldest claim among the hosts with a free slot goes first", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 1, startWindowMs: 1000 });
    q.hold(many("a.example", 3), 100);
    q.hold(many("b.example", 3), 50);
    q.hold(many("c.example", 3), 200);
    assert.deepEqual(
      [q.startNext(), q.startNext(), q.startNext(), q.startNext()].map((h) => h?.delivery.target_host),
      ["b.example", "a.example", "c.example", undefined],
    );
  });

  it("within a host, claims start in the order they were held", () => {
    const q = createHostQueues({ concurrency: 1, perTargetConcurrency: 1, startWindowMs: 1000 });
    const ds = many("a.example", 3);
    q.hold(ds, 0);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const h = q.startNext()!;
      order.push(h.delivery.id);
      q.finished("a.example", 1);
    }
    assert.deepEqual(
      order,
      ds.map((d) => d.id),
    );
    assert.equal(q.empty, true);
    assert.equal(q.heldTotal, 0);
  });
});

describe("host queues: the start window", () => {
  it("takes out the queued deliveries claimed longer ago than the window, and only those", () => {
    const q = createHostQueues({ concurrency: 1, perTargetConcurrency: 1, startWindowMs: 1000 });
    const old = many("a.example", 2);
    const otherHost = delivery("b.example");
    q.hold(old, 0);
    q.hold(many("a.example", 1), 600);
    q.hold([otherHost], 0);
    assert.deepEqual(q.expire(1000), [], "exactly at the window: still startable");
    const expired = q.expire(1001);
    assert.deepEqual(expired.map((h) => h.delivery.id).sort(), [...old, otherHost].map((d) => d.id).sort());
    assert.equal(q.heldTotal, 1, "what was taken out is no longer held");
    assert.equal(q.startNext()?.claimedAt, 600);
  });
});

describe("host queues: the backlog", () => {
  it("a host that got all its room has more due; claimed again once its queue is half empty", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 2, startWindowMs: 1000 });
    const room = q.room();
    const rows = many("a.example", room.otherHosts);
    q.hold(rows, 0);
    assert.equal(q.claimed(room, rows), false, "not the whole limit");
    assert.equal(q.wantsMore("a.example"), false, "4 queued, queue room 2: not low");
    assert.equal(q.backlogLow(), false);
    q.startNext();
    q.startNext();
    q.finished("a.example", 1000);
    q.finished("a.example", 1000);
    // 2 queued, queue room 2 (slow host): half is 1, still not low; one more started makes it low.
    assert.equal(q.wantsMore("a.example"), false);
    q.startNext();
    assert.equal(q.wantsMore("a.example"), true);
    assert.equal(q.backlogLow(), true);
  });

  it("a host that got less than its room leaves the backlog; one the dispatch left behind joins it", () => {
    const q = createHostQueues({ concurrency: 10, perTargetConcurrency: 2, startWindowMs: 1000 });
    q.leftBehind(["a.example", "b.example"]);
    assert.equal(q.wantsMore("a.example"), true);
    assert.equal(q.idle, false, "a backlog is work");
    const room = q.room();
    const rows = many("a.example", 1);
    q.hold(rows, 0);
    q.claimed(room, rows);
    assert.equal(q.wantsMore("a.example"), false, "got 1 of 4: nothing more due");
    assert.equal(q.wantsMore("b.example"), false, "got nothing with room: nothing due");
  });

  it("a claim that filled the whole limit keeps every host it got in the backlog", () => {
    const q = createHostQueues({ concurrency: 1, perTargetConcurrency: 100, startWindowMs: 1000 });
    const room = { ...q.room(), limit: 2 };
    const rows = [delivery("a.example"), delivery("b.example")];
    q.hold(rows, 0);
    assert.equal(q.claimed(room, rows), true);
    assert.equal(q.wantsMore("a.example"), true);
    assert.equal(q.wantsMore("b.example"), true);
  });
});

describe("host queues: draining on stop", () => {
  it("gives out every queued delivery once, not the ones in flight, and counts them no longer held", () => {
    const q = createHostQueues({ concurrency: 1, perTargetConcurrency: 1, startWindowMs: 1000 });
    q.hold(many("a.example", 3), 0);
    q.hold(many("b.example", 2), 0);
    const started = q.startNext()!;
    const drained = q.drain();
    assert.equal(drained.length, 4);
    assert.ok(!drained.includes(started));
    assert.equal(q.heldTotal, 1, "the one in flight");
    assert.equal(q.empty, true);
    q.finished(started.delivery.target_host, 1);
    assert.equal(q.heldTotal, 0);
    assert.equal(q.idle, true);
    assert.equal(q.room().limit, q.totalHold);
  });
});
