import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MIN_BATCH_ROWS, nextBatchRows } from "./export-batches.ts";

describe("export batches", () => {
  const bounds = { maxRows: 2000, targetChars: 1_000_000 };

  it("reads about targetChars characters at the last batch's record size, within its bounds", () => {
    // 400-character records: 2,500 would fit, the most is 2,000.
    assert.equal(nextBatchRows({ rows: 100, chars: 40_000 }, bounds), 2000);
    // 10,000-character records: 100 rows.
    assert.equal(nextBatchRows({ rows: 100, chars: 1_000_000 }, bounds), 100);
    // 2,500-character records: 400 rows.
    assert.equal(nextBatchRows({ rows: 2000, chars: 5_000_000 }, bounds), 400);
    // Records larger than the target: the floor, never zero.
    assert.equal(nextBatchRows({ rows: 3, chars: 9_000_000 }, bounds), MIN_BATCH_ROWS);
    // A resource whose most is below the floor keeps its most.
    assert.equal(nextBatchRows({ rows: 3, chars: 9_000_000 }, { maxRows: 5, targetChars: 10 }), 5);
  });

  it("an empty batch (the last) says nothing of sizes: the most", () => {
    assert.equal(nextBatchRows({ rows: 0, chars: 0 }, bounds), 2000);
  });
});
