import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClaimSchedule } from "./claim-schedule.ts";

const POLL = 1000;
const none = () => false;
const some = () => true;

/** A schedule past its first pass at `t0`: the start-up dispatch, sweep and claim made. */
function settled(t0 = 10_000) {
  const s = createClaimSchedule({ pollMs: POLL, dispatchBatch: 10 });
  const first = s.dispatchNow(t0);
  assert.deepEqual(first, { announced: true }, "a new worker dispatches at once");
  s.dispatched(true, 3);
  assert.equal(s.sweepNow(t0), true);
  assert.equal(s.claimNow(t0, true, none), true, "and claims at once");
  return s;
}

describe("claim schedule: dispatch", () => {
  it("dispatches when announced, else once per poll interval", () => {
    const s = settled();
    assert.equal(s.dispatchNow(10_500), null);
    s.announce();
    assert.deepEqual(s.dispatchNow(10_500), { announced: true });
    assert.equal(s.dispatchNow(11_499), null);
    assert.deepEqual(s.dispatchNow(11_500), { announced: false });
  });

  it("a full batch dispatches again on the next pass; an announced dispatch that found nothing owes a claim", () => {
    const s = settled();
    s.announce();
    s.dispatchNow(10_100);
    s.dispatched(true, 10);
    assert.equal(s.dispatchDue, true);
    assert.equal(s.claimDue, false, "it found events: their first attempts were claimed with them");
    s.dispatchNow(10_200);
    s.dispatched(true, 0);
    assert.equal(s.dispatchDue, false);
    assert.equal(s.claimDue, true, "a redelivery or an uninstall: only a claim finds it");
    s.dispatchNow(11_300);
    s.dispatched(false, 0);
    assert.equal(s.claimNow(11_300, true, none), true);
    s.dispatchNow(12_400);
    s.dispatched(false, 0);
    assert.equal(s.claimDue, false, "a poll that found nothing owes nothing");
  });
});

describe("claim schedule: sweep", () => {
  it("once per poll interval", () => {
    const s = settled();
    assert.equal(s.sweepNow(10_999), false);
    assert.equal(s.sweepNow(11_000), true);
    assert.equal(s.sweepNow(11_000), false);
  });
});

describe("claim schedule: claim", () => {
  it("claims when owed, when a backlog runs low, or once per poll interval; never without room", () => {
    const s = settled();
    assert.equal(s.claimNow(10_100, true, none), false, "nothing owed");
    assert.equal(s.claimNow(10_100, true, some), true, "a host's backlog runs low");
    s.claimOwed();
    assert.equal(s.claimNow(10_200, false, some), false, "no room");
    assert.equal(s.claimDue, true, "still owed");
    assert.equal(s.claimNow(10_300, true, none), true);
    assert.equal(s.claimNow(11_299, true, none), false);
    assert.equal(s.claimNow(11_300, true, none), true, "the poll interval");
  });

  it("a retry this worker recorded is claimed when it falls due, not at the next poll", () => {
    const s = settled();
    assert.equal(s.retryRecorded(10_600), true);
    assert.equal(s.retryRecorded(10_800), false, "a later one changes nothing");
    assert.equal(s.retryRecorded(10_400), true, "an earlier one does");
    assert.equal(s.claimNow(10_399, true, none), false);
    assert.equal(s.claimNow(10_400, true, none), true);
    assert.equal(s.claimNow(10_500, true, none), false, "forgotten once claimed");
  });

  it("the next due delivery, asked when idle, is claimed when it falls due", () => {
    const s = settled();
    s.nextDue(10_250);
    assert.equal(s.claimNow(10_249, true, none), false);
    assert.equal(s.claimNow(10_250, true, none), true);
    s.nextDue(null);
    assert.equal(s.claimNow(10_900, true, none), false);
  });
});

describe("claim schedule: sleep", () => {
  it("no sleep while a dispatch is due, or a claim is owed and there is room", () => {
    const s = settled();
    s.announce();
    assert.equal(s.sleepMs(10_000, true, none), null);
    s.dispatchNow(10_000);
    s.claimOwed();
    assert.equal(s.sleepMs(10_000, false, none), null);
    assert.equal(s.sleepMs(10_000, true, none), POLL, "full: an owed claim waits for room, not a timer");
  });

  it("no sleep while a host's backlog runs low and there is room", () => {
    const s = settled();
    assert.equal(s.sleepMs(10_000, false, some), null);
  });

  it("otherwise until the next poll, retry or due delivery, whichever is first, and at least 1 ms", () => {
    const s = settled();
    assert.equal(s.sleepMs(10_200, false, none), 800, "the next poll");
    s.retryRecorded(10_500);
    assert.equal(s.sleepMs(10_200, false, none), 300, "the retry");
    s.nextDue(10_300);
    assert.equal(s.sleepMs(10_200, false, none), 100, "the due delivery");
    assert.equal(s.sleepMs(10_900, false, none), 1, "already due: at least 1 ms");
  });
});
