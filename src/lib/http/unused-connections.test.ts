import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { describe, it } from "node:test";
import { trackUnusedConnections } from "./unused-connections.ts";

describe("closing the server with connections open", () => {
  it("closes a connection that never sent a request, and lets an in-flight request finish", async () => {
    let finish: (() => void) | null = null;
    const server = createServer((_req, res) => {
      finish = () => res.end("done");
    });
    const connections = trackUnusedConnections(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const idle = connect(port, "127.0.0.1");
    await new Promise((r) => idle.once("connect", r));
    const idleClosed = new Promise((r) => idle.once("close", r));
    const busy = connect(port, "127.0.0.1");
    await new Promise((r) => busy.once("connect", r));
    let answer = "";
    busy.on("data", (d) => {
      answer += d;
    });
    const busyClosed = new Promise((r) => busy.once("close", r));
    busy.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await new Promise<void>((r) => {
      const wait = () => (finish ? r() : setImmediate(wait));
      wait();
    });
    const closed = new Promise((r) => server.close(r));
    connections.closeUnused();
    await idleClosed; // without closeUnused, server.close waits for it until its headers time out
    assert.equal(busy.destroyed, false, "the request in flight is not cut");
    finish!();
    await busyClosed;
    await closed;
    assert.match(answer, /done$/);
  });
});
