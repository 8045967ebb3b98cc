import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createFeedSequencer } from "./feed-repo.ts";

/** A repo of per-store backlogs whose batches wait for the test to let them finish. */
function gatedRepo() {
  const calls: string[] = [];
  const pending = new Map<string, number>();
  const gates: Array<() => void> = [];
  return {
    calls,
    pending,
    release: () => gates.shift()?.(),
    get waiting() {
      return gates.length;
    },
    repo: {
      async hasUnsequenced(storeId: string) {
        calls.push(`check ${storeId}`);
        return (pending.get(storeId) ?? 0) > 0;
      },
      async sequenceBatch(storeId: string) {
        calls.push(`batch ${storeId}`);
        await new Promise<void>((resolve) => gates.push(resolve));
        const n = Math.min(pending.get(storeId) ?? 0, 2);
        pending.set(storeId, (pending.get(storeId) ?? 0) - n);
        return n;
      },
    },
  };
}

/** Lets every gated batch finish until `work` settles. */
async function drain(g: ReturnType<typeof gatedRepo>, work: Promise<unknown>) {
  let settled = false;
  void work.finally(() => {
    settled = true;
  });
  while (!settled) {
    await tick();
    g.release();
  }
  await work;
}

const tick = () => new Promise((r) => setImmediate(r));

describe("feed sequencer", () => {
  it("does nothing but one check when nothing waits to be numbered", async () => {
    const g = gatedRepo();
    await createFeedSequencer({ repo: g.repo }).sequence("s1");
    assert.deepEqual(g.calls, ["check s1"]);
  });

  it("numbers a backlog one batch per transaction until none is left", async () => {
    const g = gatedRepo();
    g.pending.set("s1", 5);
    await drain(g, createFeedSequencer({ repo: g.repo }).sequence("s1"));
    assert.deepEqual(g.calls, ["check s1", "batch s1", "batch s1", "batch s1", "batch s1"]);
  });

  it("callers arriving during a run share one run after it (which sees their events); other stores run apart", async () => {
    const g = gatedRepo();
    g.pending.set("s1", 1);
    const sequencer = createFeedSequencer({ repo: g.repo });
    const first = sequencer.sequence("s1");
    await tick();
    assert.equal(g.waiting, 1, "the first run is numbering");
    const late = [sequencer.sequence("s1"), sequencer.sequence("s1"), sequencer.sequence("s1")];
    assert.equal(late[0], late[1], "one queued run serves every late caller");
    assert.equal(late[1], late[2]);
    g.pending.set("s1", 2); // events committed while the first run was numbering
    await drain(g, Promise.all([first, ...late, sequencer.sequence("s2")]));
    assert.equal(g.calls.filter((c) => c === "check s1").length, 2, "the first run, then one more");
    assert.equal(g.pending.get("s1"), 0, "the queued run numbered what committed meanwhile");
    assert.ok(g.calls.includes("check s2"), "another store does not wait for s1");
  });
});
