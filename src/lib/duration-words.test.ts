import assert from "node:assert/strict";
import { it } from "node:test";
import { durationInWords } from "./duration-words.ts";

it("states a duration in its largest whole unit", () => {
  assert.equal(durationInWords(3_600_000), "1 hour");
  assert.equal(durationInWords(30 * 86_400_000), "30 days");
  assert.equal(durationInWords(60_000), "1 min");
  assert.equal(durationInWords(90_000), "90 s");
  assert.equal(durationInWords(10_000), "10 s");
  assert.equal(durationInWords(250), "250 ms");
  assert.equal(durationInWords(5 * 86_400_000), "5 days");
});
