import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitServerOptions } from "./client.ts";

describe("splitServerOptions", () => {
  it("takes libpq's options parameter out of the URL and keeps everything else", () => {
    const { url, serverOptions } = splitServerOptions(
      "postgres://u:p@db:5432/app?sslmode=require&options=-c%20plan_cache_mode%3Dforce_generic_plan",
    );
    assert.equal(url, "postgres://u:p@db:5432/app?sslmode=require");
    assert.equal(serverOptions, "-c plan_cache_mode=force_generic_plan");
  });
  it("answers no options for a URL without them", () => {
    assert.deepEqual(splitServerOptions("postgres://db/app"), {
      url: "postgres://db/app",
      serverOptions: "",
    });
  });
});
