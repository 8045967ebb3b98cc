import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exportRecords } from "./export.ts";

/** A GET answering each call with the next body (a string ends cleanly, whatever it holds). */
function answering(bodies: string[]) {
  const queries: Array<Record<string, string>> = [];
  const get = async (_path: string, init: { params: { query: Record<string, string> } }) => {
    queries.push(init.params.query);
    const body = bodies.shift();
    assert.ok(body !== undefined, "no more answers");
    return {
      response: new Response(body, {
        status: 200,
        headers: { "x-export-snapshot": "snap-1", "x-export-as-of": "2026-11-29T10:00:00.000Z" },
      }),
    };
  };
  return { get, queries };
}

async function all(get: ReturnType<typeof answering>["get"]) {
  const ids: string[] = [];
  for await (const r of exportRecords(get, "/api/v1/apps/api", "products", { sleep: async () => {} }))
    ids.push((r as { id: string }).id);
  return ids;
}

describe("exportRecords", () => {
  it("takes a body that ends after its last newline as the whole export", async () => {
    const { get, queries } = answering(['{"id":"a"}\n{"id":"b"}\n']);
    assert.deepEqual(await all(get), ["a", "b"]);
    assert.equal(queries.length, 1);
  });

  it("resumes after the last complete line when a body ends mid-line without an error", async () => {
    const { get, queries } = answering(['{"id":"a"}\n{"id":"b"}\n{"id":"c', '{"id":"c"}\n{"id":"d"}\n']);
    assert.deepEqual(await all(get), ["a", "b", "c", "d"]);
    assert.deepEqual(queries, [{}, { snapshot: "snap-1", after: "b" }]);
  });
});
