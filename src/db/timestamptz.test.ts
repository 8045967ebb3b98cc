import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pg from "pg";
import { parseTimestamptz } from "./timestamptz.ts";

const TIMESTAMPTZ_OID = 1184;
const original = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => unknown;
const same = (text: string) => {
  const mine = parseTimestamptz(text, original);
  const theirs = original(text);
  assert.equal(
    mine instanceof Date ? mine.getTime() : mine,
    theirs instanceof Date ? theirs.getTime() : theirs,
    text,
  );
};

describe("timestamptz text parser", () => {
  it("reads what the server sends exactly as node-postgres does", () => {
    for (const text of [
      "2026-11-26 14:30:07.241+00",
      "2026-11-26 14:30:07+00",
      "2026-11-26 14:30:07.2+00",
      "2026-11-26 14:30:07.24+00",
      "2026-11-26 14:30:07.241567+00",
      "2026-11-26 14:30:07.241+05:30",
      "2026-11-26 14:30:07.241-03",
      "2026-11-26 00:00:00-09:30",
      "1970-01-01 00:00:00+00",
      "2000-02-29 23:59:59.999+14",
      "9999-12-31 23:59:59.999+00",
      "0100-01-01 00:00:00+00",
    ])
      same(text);
  });

  it("leaves every other form to node-postgres", () => {
    for (const text of [
      "infinity",
      "-infinity",
      "0044-03-15 12:00:00+00 BC",
      "0099-01-01 00:00:00+00",
      "12026-01-01 00:00:00+00",
      "2026-11-26 14:30:07+01:02:03",
      "2026-11-26T14:30:07Z",
      "2026-11-26",
    ])
      same(text);
    let called = 0;
    parseTimestamptz("2026-11-26 14:30:07.+00", () => called++);
    parseTimestamptz("2026-1x-26 14:30:07+00", () => called++);
    assert.equal(called, 2);
  });

  it("agrees on random instants over the years 100-9999 and offsets", () => {
    for (let i = 0; i < 2000; i++) {
      const ms = -58_000_000_000_000 + Math.floor(Math.random() * 311_000_000_000_000);
      const offset = (Math.floor(Math.random() * 57) - 28) * 30;
      const local = new Date(ms + offset * 60_000).toISOString();
      const sign = offset < 0 ? "-" : "+";
      const abs = Math.abs(offset);
      const hh = String(Math.floor(abs / 60)).padStart(2, "0");
      const mm = String(abs % 60).padStart(2, "0");
      same(`${local.slice(0, 10)} ${local.slice(11, 23)}${sign}${hh}${mm === "00" ? "" : `:${mm}`}`);
    }
  });
});
