import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { UNREAD_BODY_DRAIN } from "../src/lib/http/json-body.ts";
import { createTestContext, type TestContext } from "./harness.ts";

/**
 * Uploads `mb` MB in one write, `times` times in a row, from another process (a client in the
 * server's own process never races it), and prints each answer's status and error code or the
 * client's error.
 */
const UPLOADER = `
import { request } from "node:http";
const [port, path, mb, times] = process.argv.slice(1);
const body = Buffer.alloc(Number(mb) * 1024 * 1024, 0x20);
const out = [];
for (let i = 0; i < Number(times); i++) {
  out.push(await new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port: Number(port), path, method: "POST",
      headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => { text += c; });
      res.on("end", () => {
        let code = "";
        try { code = JSON.parse(text).error.code; } catch {}
        resolve(res.statusCode + " " + code);
      });
    });
    req.on("error", (e) => resolve(e.code ?? e.message));
    req.end(body);
  }));
}
console.log(JSON.stringify(out));
`;
async function uploads(port: number, path: string, mb: number, times: number): Promise<string[]> {
  // Asynchronously: the server answering it runs in this process.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "-e", UPLOADER, String(port), path, String(mb), String(times)],
    { encoding: "utf8", timeout: 120_000 },
  );
  return JSON.parse(stdout) as string[];
}

/**
 * Issue 23: a body over the limit is answered 413 before it is read, and the connection closed;
 * a client still sending saw a reset (EPIPE) instead of the answer about a third of the time.
 */
describe("an oversized body always gets its 413", () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  after(() => ctx.close());

  it("50 uploads of 16 MB in a row to a dashboard route each read the 413 envelope", async () => {
    assert.ok(16 * 1024 * 1024 < UNREAD_BODY_DRAIN.bytes);
    const answers = await uploads(port, "/api/v1/dashboard/auth/login", 16, 50);
    assert.deepEqual(answers, Array(50).fill("413 PAYLOAD_TOO_LARGE"));
  });

  it("the same for an answer given before the body is read (no credentials)", async () => {
    const answers = await uploads(port, "/api/v1/apps/api/products", 16, 10);
    assert.deepEqual(answers, Array(10).fill("401 INVALID_TOKEN"));
  });
});
