import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { attemptStartWindowMs, ConfigError, loadConfig, MIN_ATTEMPT_START_WINDOW_MS } from "./config.ts";

describe("configuration", () => {
  it("defaults leave a delivery claim most of its lease to start in", () => {
    const config = loadConfig({});
    assert.equal(attemptStartWindowMs(config.WEBHOOK_LEASE_MS, config.WEBHOOK_TIMEOUT_MS), 44_000);
  });

  it("refuses a webhook lease too short to finish and record an attempt inside it", () => {
    // A lease equal to the time-out left no moment at which an attempt could start: a worker
    // claimed deliveries, gave them back, and never delivered anything.
    assert.throws(
      () => loadConfig({ WEBHOOK_LEASE_MS: "5000", WEBHOOK_TIMEOUT_MS: "5000" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /WEBHOOK_LEASE_MS: must exceed WEBHOOK_TIMEOUT_MS/.test(error.message),
    );
    assert.throws(() => loadConfig({ WEBHOOK_LEASE_MS: "3000", WEBHOOK_TIMEOUT_MS: "2300" }), ConfigError);
    const ok = loadConfig({ WEBHOOK_LEASE_MS: "3000", WEBHOOK_TIMEOUT_MS: "2000" });
    assert.ok(
      attemptStartWindowMs(ok.WEBHOOK_LEASE_MS, ok.WEBHOOK_TIMEOUT_MS) >= MIN_ATTEMPT_START_WINDOW_MS,
    );
  });
});
