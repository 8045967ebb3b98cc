import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * Closing the server also closes the connections no request is using. Node's `server.close()`
 * waits for every open connection, and its own idle sweep leaves out a connection that has not
 * sent a request yet: one connection opened ahead of time (browsers preconnect, load balancers
 * pool) held a SIGTERM for the whole drain limit, and the process exited 1. In-flight requests
 * still finish; a connection that carried one is closed once it is idle.
 */
export function trackUnusedConnections(server: Server): { closeUnused(): void } {
  const open = new Set<Socket>();
  const busy = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      busy.delete(socket);
    });
  });
  server.on("request", (request, response) => {
    busy.add(request.socket);
    response.once("close", () => busy.delete(request.socket));
  });
  return {
    closeUnused() {
      for (const socket of open) if (!busy.has(socket)) socket.destroy();
    },
  };
}
