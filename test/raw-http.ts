import { connect } from "node:net";

/**
 * One request written byte for byte to a real connection, for what `app.inject` and fetch cannot
 * send (a NUL or DEL in a header, spaces around a header value: both clients check or trim them)
 * and what only Node's HTTP parser sees. Reads until the server closes or `ms` pass.
 */
export function rawRequest(
  port: number,
  text: string | Buffer,
  ms = 5000,
): Promise<{ status: number; headers: Record<string, string>; body: string; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.end(), ms);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = raw.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: rest.join("\r\n\r\n"), raw });
    });
    socket.write(typeof text === "string" ? Buffer.from(text, "latin1") : text);
  });
}
