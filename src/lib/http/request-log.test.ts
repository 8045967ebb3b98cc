import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import Fastify from "fastify";
import pino from "pino";
import { RequestLog } from "./request-log.ts";

function appLogging(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level }, sink), logController: new RequestLog() });
  app.get("/things/:id", async () => ({ ok: true }));
  return { app, lines };
}

describe("request log", () => {
  it("one line per request at info: method, path (no query), status, time, request id", async () => {
    const { app, lines } = appLogging("info");
    const res = await app.inject({ url: "/things/7?q=secret-search" });
    assert.equal(res.statusCode, 200);
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line!.level, 30);
    assert.equal(line!.method, "GET");
    assert.equal(line!.path, "/things/7");
    assert.equal(line!.status, 200);
    assert.equal(typeof line!.ms, "number");
    assert.ok(line!.reqId);
    assert.match(String(line!.msg), /^GET \/things\/7 200 [\d.]+ ms$/);
    assert.doesNotMatch(JSON.stringify(lines), /secret-search/);
  });

  it("the request's details only at debug", async () => {
    const { app, lines } = appLogging("debug");
    await app.inject({ url: "/things/7", headers: { "user-agent": "probe" } });
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.level, 20);
    assert.match(JSON.stringify(lines[0]), /"url":"\/things\/7"/);
  });
});
