import { createServer } from "node:net";

/** A start that cannot go on for a reason the operator must fix: printed as it is, without a stack. */
export class StartupError extends Error {}

/**
 * Fails when `port` cannot be listened on at `host`, so a start that would fail at listen() fails
 * before it touches any data. The probe closes at once; the real listen comes a moment later.
 */
export async function assertPortFree(variable: string, port: number, host: string): Promise<void> {
  if (port === 0) return; // an ephemeral port is always free
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "EADDRINUSE" ? "is already in use" : `cannot be listened on (${code})`;
    throw new StartupError(`${variable} ${port} on ${host} ${reason}; nothing was started.`);
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}
