import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../lib/errors.ts";
import { appsWithMetadata, forViewer, mergeMetadata, ownMetadata } from "./app-metadata.ts";

describe("app metadata rules", () => {
  it("merges an app's patch into its own pairs only; null removes a key", () => {
    const all = { app_a: { erpId: "1", keep: "x" }, app_b: { erpId: "other" } };
    const { metadata, changed } = mergeMetadata(all, "app_a", { erpId: "2", keep: null, added: "y" });
    assert.equal(changed, true);
    assert.deepEqual(metadata, { app_a: { erpId: "2", added: "y" }, app_b: { erpId: "other" } });
    assert.deepEqual(all.app_a, { erpId: "1", keep: "x" }, "the input is not modified");
  });

  it("says when nothing changed (same values, empty patch, removing what is not there)", () => {
    const all = { app_a: { erpId: "1" } };
    assert.equal(mergeMetadata(all, "app_a", { erpId: "1" }).changed, false);
    assert.equal(mergeMetadata(all, "app_a", {}).changed, false);
    assert.equal(mergeMetadata(all, "app_a", undefined).changed, false);
    assert.equal(mergeMetadata(all, "app_b", { gone: null }).changed, false);
  });

  it("drops an app's entry when its last key goes", () => {
    const { metadata } = mergeMetadata({ app_a: { k: "v" }, app_b: { k: "w" } }, "app_a", { k: null });
    assert.deepEqual(metadata, { app_b: { k: "w" } });
    assert.deepEqual(appsWithMetadata(metadata), ["app_b"]);
  });

  it("refuses more than 50 keys per app and record, counting what is there", () => {
    const existing = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, "v"]));
    const patch = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`n${i}`, "v"]));
    assert.throws(
      () => mergeMetadata({ app_a: existing }, "app_a", patch),
      (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED",
    );
    // Another app's 45 keys do not count against this one.
    assert.equal(mergeMetadata({ app_b: existing }, "app_a", patch).changed, true);
    // Removing as many as it adds stays within the bound.
    assert.doesNotThrow(() =>
      mergeMetadata({ app_a: existing }, "app_a", { ...patch, k0: null, k1: null, k2: null, k3: null }),
    );
  });

  it("shows an app its own pairs and nothing else", () => {
    const all = { app_a: { erpId: "1" }, app_b: { secret: "theirs" } };
    assert.deepEqual(ownMetadata(all, "app_a"), { erpId: "1" });
    assert.deepEqual(ownMetadata(all, "app_c"), {});
    assert.deepEqual(forViewer({ id: "ord_1" }, all, { appId: "app_b" }), {
      id: "ord_1",
      metadata: { secret: "theirs" },
    });
  });
});
