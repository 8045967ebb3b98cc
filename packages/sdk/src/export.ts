import { PlatformError } from "./errors.ts";
import type { paths } from "./generated/api.ts";

/** What a bulk export can read. */
export type ExportResource = "products" | "orders" | "customers" | "inventory";

/** One record of an export of `R`: the resource's list item, as the OpenAPI document types it. */
export type ExportRecord<R extends ExportResource> = R extends ExportResource
  ? paths[`/api/v1/apps/api/export/${R}`]["get"]["responses"][200]["content"]["application/x-ndjson"]
  : never;

export interface ExportOptions {
  /** Only records changed at or after this instant (an incremental sync). */
  updatedSince?: Date | string;
  /** An inventory export: only the stock levels at this location (`loc_…`). */
  locationId?: string;
  /**
   * Called once the export has started, with its snapshot time: pass a little less (5 minutes)
   * as the next sync's `updatedSince`, so a change committed while this export ran is not missed.
   */
  onStart?: (info: { snapshot: string; asOf: string }) => void;
  /** Reconnections after dropped connections, in a row without a record between them. Default 5. */
  maxResumes?: number;
  signal?: AbortSignal;
  /** Waits between reconnections (1 s doubling); injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** The typed client's GET with a body left as a stream; what `exportAll` needs of a client. */
type StreamingGet = (
  path: string,
  init: { params: { query: Record<string, string> }; parseAs: "stream"; signal?: AbortSignal },
) => Promise<{ data?: unknown; response: Response }>;

/** The records of a JSON Lines body, with the text after the last complete line kept for the next chunk. */
async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    let start = 0;
    while (newline >= 0) {
      if (newline > start) yield buffer.slice(start, newline);
      start = newline + 1;
      newline = buffer.indexOf("\n", start);
    }
    buffer = buffer.slice(start);
  }
  // A complete export ends with a newline. A body that ends in the middle of a line without a
  // transport error (a proxy that ends a close-delimited response when its upstream was cut) was
  // cut all the same: what is left is not a record, and the export is resumed, not taken as done.
  if (buffer !== "") throw new ExportCutError();
}

/** The export's body ended in the middle of a line: resumed after the last complete record. */
class ExportCutError extends Error {
  constructor() {
    super("The export's response ended in the middle of a line.");
  }
}

/**
 * Every record of a bulk export (`GET …/export/{resource}`), one at a time, typed from the OpenAPI
 * document. A dropped connection is resumed where it stopped (the export's `snapshot` and the last
 * record's id), so each record comes exactly once, from one consistent snapshot; refusals throw
 * `PlatformError` (429s, 401s and 5xx before the first record are retried by the client).
 */
export async function* exportRecords<R extends ExportResource>(
  get: StreamingGet,
  prefix: string,
  resource: R,
  options: ExportOptions = {},
): AsyncGenerator<ExportRecord<R>> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const updatedSince =
    options.updatedSince === undefined
      ? undefined
      : typeof options.updatedSince === "string"
        ? options.updatedSince
        : options.updatedSince.toISOString();
  let snapshot: string | undefined;
  let after: string | undefined;
  let failures = 0;
  for (;;) {
    const query: Record<string, string> =
      snapshot === undefined
        ? {
            ...(updatedSince ? { updatedSince } : {}),
            ...(options.locationId ? { locationId: options.locationId } : {}),
          }
        : { snapshot, ...(after ? { after } : {}) };
    let body: ReadableStream<Uint8Array> | null = null;
    try {
      const { response } = await get(`${prefix}/export/${resource}`, {
        params: { query },
        parseAs: "stream",
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (snapshot === undefined) {
        snapshot = response.headers.get("x-export-snapshot") ?? undefined;
        if (!snapshot)
          throw new PlatformError({
            code: "INVALID_RESPONSE",
            message: "The export answered without X-Export-Snapshot.",
            status: response.status,
            requestId: response.headers.get("x-request-id"),
          });
        options.onStart?.({ snapshot, asOf: response.headers.get("x-export-as-of") ?? "" });
      }
      body = response.body;
      if (!body) return;
      for await (const line of readLines(body)) {
        const record = JSON.parse(line) as ExportRecord<R>;
        after = (record as { id: string }).id;
        failures = 0;
        yield record;
      }
      return;
    } catch (error) {
      // Refusals (after the client's own retries) and a caller's abort end the export; a cut
      // connection is resumed after the last complete record.
      if (error instanceof PlatformError || options.signal?.aborted || error instanceof SyntaxError)
        throw error;
      await body?.cancel().catch(() => {});
      if (++failures > (options.maxResumes ?? 5)) throw error;
      await sleep(Math.min(30_000, 1000 * 2 ** (failures - 1)));
    }
  }
}
