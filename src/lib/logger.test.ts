import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { stripVTControlCharacters } from "node:util";
import Fastify from "fastify";
import { RequestLog } from "./http/request-log.ts";
import { createLogger } from "./logger.ts";

describe("the logger in a terminal (pino-pretty)", () => {
  it("writes a request as one line, and other records with their fields", async () => {
    let text = "";
    const destination = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    });
    const logger = await createLogger({ level: "info", pretty: true, destination });
    const app = Fastify({ loggerInstance: logger, logController: new RequestLog() });
    app.get("/things/:id", async () => ({ ok: true }));
    const res = await app.inject({ url: "/things/7" });
    assert.equal(res.statusCode, 200);
    logger.warn({ status: 502, target: "https://example.com" }, "receiver failed");
    await app.close();

    const lines = stripVTControlCharacters(text).trimEnd().split("\n");
    assert.match(lines[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/things\/7 200 [\d.]+ ms · req-\d+$/);
    // The next record is the warning: nothing of the request's line was printed under it.
    assert.match(lines[1]!, /WARN: receiver failed$/);
    assert.deepEqual(lines.slice(2), ["    status: 502", '    target: "https://example.com"']);
  });
});
