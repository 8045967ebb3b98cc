import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startOfLocalDay } from "./local-day.ts";

const NY = "America/New_York";
const at = (iso: string) => Date.parse(iso);

describe("startOfLocalDay", () => {
  it("is the zone's midnight of the day an instant falls in", () => {
    // 00:20 in New York (EST) is 05:20 UTC: the day started 20 minutes before.
    assert.equal(startOfLocalDay(at("2026-11-30T05:20:00.250Z"), NY), at("2026-11-30T05:00:00Z"));
    // 23:59 in New York is the next UTC day: still the New York day that started at 05:00 UTC.
    assert.equal(startOfLocalDay(at("2026-12-01T04:59:59Z"), NY), at("2026-11-30T05:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-11-30T05:00:00Z"), NY), at("2026-11-30T05:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-11-30T12:00:00Z"), "UTC"), at("2026-11-30T00:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-11-30T12:00:00Z"), "Asia/Kolkata"), at("2026-11-29T18:30:00Z"));
  });

  it("holds on the days the clocks move", () => {
    // 8 March 2026: 02:00 EST becomes 03:00 EDT; the day started at 05:00 UTC (EST).
    assert.equal(startOfLocalDay(at("2026-03-08T12:00:00Z"), NY), at("2026-03-08T05:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-03-09T12:00:00Z"), NY), at("2026-03-09T04:00:00Z"));
    // 1 November 2026: 02:00 EDT becomes 01:00 EST; the day started at 04:00 UTC (EDT).
    assert.equal(startOfLocalDay(at("2026-11-01T12:00:00Z"), NY), at("2026-11-01T04:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-11-02T12:00:00Z"), NY), at("2026-11-02T05:00:00Z"));
  });
});
