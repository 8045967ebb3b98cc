import { createServer } from "node:net";

/**
 * First ports of the servers tests start themselves, below the kernel's ephemeral range
 * (32768-60999 on Linux): a port in it can be held by another process's outgoing connection (a
 * database pool's) for as long as that lives, and a fault test restarts its server on its port.
 */
export const TEST_PORTS = { operations: 21000, postgres: 22432, redis: 23379, smtp: 24025 } as const;

/** True when nothing listens on the loopback port now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
