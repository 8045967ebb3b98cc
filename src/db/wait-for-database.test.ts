import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitForDatabase } from "./wait-for-database.ts";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const startingUp = () => Object.assign(new Error("the database system is starting up"), { code: "57P03" });

function recorder() {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const slept: number[] = [];
  return {
    warnings,
    slept,
    options: {
      logger: {
        warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }),
      },
      sleep: async (ms: number) => {
        slept.push(ms);
      },
      backoff: { firstMs: 500, maxMs: 4000, random: () => 0.5 },
    },
  };
}

describe("waitForDatabase", () => {
  it("retries while the database is unavailable, backing off to the cap and logging each next delay", async () => {
    const r = recorder();
    let calls = 0;
    const result = await waitForDatabase(async () => {
      calls++;
      if (calls <= 4) throw refused();
      if (calls === 5) throw startingUp();
      return "migrated";
    }, r.options);
    assert.equal(result, "migrated");
    assert.equal(calls, 6);
    assert.deepEqual(r.slept, [500, 1000, 2000, 4000, 4000]);
    assert.deepEqual(
      r.warnings.map((w) => [w.fields.attempt, w.fields.retryInMs, w.fields.code]),
      [
        [1, 500, "ECONNREFUSED"],
        [2, 1000, "ECONNREFUSED"],
        [3, 2000, "ECONNREFUSED"],
        [4, 4000, "ECONNREFUSED"],
        [5, 4000, "57P03"],
      ],
    );
    assert.match(r.warnings[0]!.message, /database unavailable; retrying in 500 ms/);
  });

  it("gives up at once on an error that waiting cannot fix", async () => {
    const r = recorder();
    const wrongPassword = Object.assign(new Error('password authentication failed for user "app"'), {
      code: "28P01",
    });
    await assert.rejects(
      waitForDatabase(async () => {
        throw wrongPassword;
      }, r.options),
      wrongPassword,
    );
    assert.deepEqual(r.slept, []);
  });
});
