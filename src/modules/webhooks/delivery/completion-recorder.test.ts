import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeliveryStatus } from "../../../contracts/index.ts";
import { createCompletionRecorder, disableRequests } from "./completion-recorder.ts";
import type { Completion, DeliveryRepo, DisableRequest } from "./delivery-repo.ts";
import { DISABLING_STATUSES, failureReason } from "./retry-policy.ts";

const NOW = new Date("2026-11-26T12:00:00.000Z");
const DAY = 86_400_000;

const completion = (
  id: string,
  statusCode: number | null,
  next: Completion["next"],
  subscription = "whs_1",
): Completion => ({
  delivery: { store_id: "store_1", id, subscription_id: subscription, attempts: 1, lease_token: "lease" },
  startedAt: new Date(NOW.getTime() - 1000),
  durationMs: 5,
  statusCode,
  error: statusCode === null ? "timeout" : null,
  responseBody: null,
  next,
  now: NOW,
});
const delivered = { status: DeliveryStatus.delivered } as const;
const failed = { status: DeliveryStatus.failed } as const;
const retryAt = (ms: number) => ({ status: DeliveryStatus.pending, at: new Date(ms) }) as const;
const rules = { disablesAtOnce: (s: number) => DISABLING_STATUSES.has(s), failureReason };

describe("disableRequests: which subscriptions a batch asks to disable", () => {
  it("a 410 at once (gone), an overdue subscription's failure, nothing for a success or a young failure", () => {
    const batch = [
      completion("whd_1", 410, failed, "whs_gone"),
      completion("whd_2", 503, retryAt(0), "whs_overdue"),
      completion("whd_3", 503, retryAt(0), "whs_young"),
      completion("whd_4", 200, delivered, "whs_overdue"),
    ];
    const overdue = [{ store_id: "store_1", subscription_id: "whs_overdue" }];
    assert.deepEqual(disableRequests(batch, overdue, rules), [
      {
        store_id: "store_1",
        subscription_id: "whs_gone",
        reason: "HTTP 410 Gone",
        gone: true,
        failedAt: batch[0]!.startedAt,
      },
      {
        store_id: "store_1",
        subscription_id: "whs_overdue",
        reason: "HTTP 503 Service Unavailable",
        gone: false,
        failedAt: batch[1]!.startedAt,
      },
    ]);
  });

  it("an overdue subscription in another store is another subscription", () => {
    const batch = [completion("whd_1", null, retryAt(0))];
    assert.deepEqual(disableRequests(batch, [{ store_id: "store_2", subscription_id: "whs_1" }], rules), []);
    assert.equal(
      disableRequests(batch, [{ store_id: "store_1", subscription_id: "whs_1" }], rules)[0]?.reason,
      "timeout",
    );
  });
});

/** A recorder on a fake repository that records what it was asked. */
function setup(
  options: { applied?: (id: string) => boolean; overdue?: boolean; disableFails?: boolean } = {},
) {
  const asked = {
    complete: [] as Array<{ ids: string[]; failingBefore: Date | undefined }>,
    disable: [] as Array<{ requests: DisableRequest[]; failingBefore: Date }>,
    retries: [] as number[],
  };
  const warnings: string[] = [];
  const repo: Pick<DeliveryRepo, "completeMany" | "disableSubscriptions"> = {
    async completeMany(items, failingBefore) {
      asked.complete.push({ ids: items.map((i) => i.delivery.id), failingBefore });
      return {
        applied: new Set(items.map((i) => i.delivery.id).filter(options.applied ?? (() => true))),
        overdue: options.overdue
          ? [{ store_id: "store_1", subscription_id: "whs_1", failing_since: NOW }]
          : [],
      };
    },
    async disableSubscriptions(requests, _now, failingBefore) {
      if (options.disableFails) throw new Error("deadlock detected");
      asked.disable.push({ requests: [...requests], failingBefore });
      return requests.map((r) => ({
        store_id: r.store_id,
        subscription_id: r.subscription_id,
        reason: r.reason,
      }));
    },
  };
  const recorder = createCompletionRecorder({
    repo,
    clock: { now: () => NOW },
    disableAfterMs: 5 * DAY,
    logger: { warn: (_fields: unknown, message: string) => warnings.push(message) } as never,
    ...rules,
    onRetry: (at) => asked.retries.push(at),
  });
  return { recorder, asked, warnings };
}

describe("completion recorder", () => {
  it("one completeMany for the batch, with now minus the disable window; no disable statement when none is due", async () => {
    const t = setup();
    await t.recorder.record([completion("whd_1", 200, delivered), completion("whd_2", 500, retryAt(0))]);
    assert.deepEqual(t.asked.complete, [
      { ids: ["whd_1", "whd_2"], failingBefore: new Date(NOW.getTime() - 5 * DAY) },
    ]);
    assert.deepEqual(t.asked.disable, []);
    assert.deepEqual(t.warnings, []);
  });

  it("reports each retry it applied (the worker claims it when due); not one whose lease was lost, which it warns about", async () => {
    const t = setup({ applied: (id) => id !== "whd_lost" });
    await t.recorder.record([
      completion("whd_1", 500, retryAt(5000)),
      completion("whd_lost", 500, retryAt(1000)),
      completion("whd_2", 200, delivered),
      completion("whd_3", 503, retryAt(3000)),
    ]);
    assert.deepEqual(t.asked.retries, [5000, 3000]);
    assert.deepEqual(t.warnings, ["delivery lease lost before completion; outcome not applied"]);
  });

  it("disables a 410 and an overdue subscription in one statement, after the outcomes, and logs each", async () => {
    const t = setup({ overdue: true });
    await t.recorder.record([
      completion("whd_1", 503, retryAt(0)),
      completion("whd_2", 410, failed, "whs_gone"),
    ]);
    assert.equal(t.asked.disable.length, 1);
    assert.deepEqual(
      t.asked.disable[0]!.requests.map((r) => [r.subscription_id, r.gone]),
      [
        ["whs_1", false],
        ["whs_gone", true],
      ],
    );
    assert.equal(t.asked.disable[0]!.failingBefore.getTime(), NOW.getTime() - 5 * DAY);
    assert.deepEqual(t.warnings, ["webhook subscription disabled", "webhook subscription disabled"]);
  });

  it("a failed disable is logged, not thrown: the outcomes are recorded and the next failure asks again", async () => {
    const t = setup({ disableFails: true });
    await t.recorder.record([completion("whd_1", 410, failed)]);
    assert.deepEqual(t.warnings, [
      "could not disable webhook subscriptions; the next failed attempt asks again",
    ]);
  });

  it("a failed completeMany is thrown (the batcher decides) and disables nothing", async () => {
    const t = setup();
    const broken = createCompletionRecorder({
      repo: {
        completeMany: async () => {
          throw new Error("connection terminated");
        },
        disableSubscriptions: async () => {
          throw new Error("not reached");
        },
      },
      clock: { now: () => NOW },
      disableAfterMs: DAY,
      logger: { warn: () => {} } as never,
      ...rules,
      onRetry: () => {},
    });
    await assert.rejects(broken.record([completion("whd_1", 410, failed)]), /connection terminated/);
    assert.deepEqual(t.asked.disable, []);
  });
});
