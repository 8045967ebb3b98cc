import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeliveryStatus } from "../../../contracts/index.ts";
import { runsOfFailures } from "./failure-runs.ts";

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, s));
const done = (sub: string, s: number, status: DeliveryStatus) => ({
  delivery: { store_id: "store_1", subscription_id: sub },
  startedAt: at(s),
  next: { status },
});
const { delivered, failed, pending } = DeliveryStatus;

describe("runs of failures in a batch of completions", () => {
  it("failures only: the run begins at the earliest (a retry counts as a failure)", () => {
    assert.deepEqual(runsOfFailures([done("a", 5, pending), done("a", 2, failed), done("a", 9, pending)]), [
      { store_id: "store_1", subscription_id: "a", success: null, failure: at(2) },
    ]);
  });

  it("a success ends the run: only failures after the latest success begin a new one", () => {
    const [a] = runsOfFailures([
      done("a", 1, failed),
      done("a", 3, delivered),
      done("a", 4, pending),
      done("a", 2, delivered),
      done("a", 6, failed),
    ]);
    assert.deepEqual(a, { store_id: "store_1", subscription_id: "a", success: at(3), failure: at(4) });
    const [b] = runsOfFailures([done("b", 1, failed), done("b", 3, delivered)]);
    assert.deepEqual(b, { store_id: "store_1", subscription_id: "b", success: at(3), failure: null });
  });

  it("one entry per subscription, in the order first seen", () => {
    const runs = runsOfFailures([done("a", 1, delivered), done("b", 1, failed), done("a", 2, delivered)]);
    assert.deepEqual(
      runs.map((r) => [
        r.subscription_id,
        r.success?.getUTCSeconds() ?? null,
        r.failure?.getUTCSeconds() ?? null,
      ]),
      [
        ["a", 2, null],
        ["b", null, 1],
      ],
    );
  });
});
