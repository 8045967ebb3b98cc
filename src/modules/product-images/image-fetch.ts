import { request } from "undici";
import { AppError } from "../../lib/errors.ts";
import { createWebhookAgent } from "../webhooks/delivery/sender.ts";
import { assertSafeTargetUrl, type Resolver, systemResolver } from "../webhooks/delivery/ssrf.ts";

/**
 * Fetching an image from the URL an app gave (`src`), with the webhooks' SSRF guard
 * (webhooks/delivery/ssrf.ts) rather than a second one: the URL is checked as a webhook target is
 * (https, no credentials, a host that resolves only to public addresses), and the connection goes
 * through the webhook sender's guarded connector, which checks the address it actually connects
 * to, so a DNS answer that changes between the check and the connection cannot reach inside.
 * Redirects are followed (at most 3), each new URL checked the same way. The body is read up to
 * `maxBytes` and the transfer is cut there.
 */
export interface ImageFetchOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS (development): http on loopback and private addresses allowed. */
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  resolve?: Resolver | undefined;
}

const MAX_REDIRECTS = 3;
const FIELD = "src";

const cannotFetch = (message: string) =>
  new AppError("VALIDATION_FAILED", {
    message: `The image could not be fetched: ${message}.`,
    details: [{ field: FIELD, message }],
  });

export function createImageFetcher(options: ImageFetchOptions) {
  const resolve = options.resolve ?? systemResolver;
  // Keep-alive connections for the process, each checked when it opens under this one policy.
  const agent = createWebhookAgent(4);
  const dispatcher = agent.dispatcher(resolve, options.allowPrivate);

  async function fetchOnce(url: string, signal: AbortSignal) {
    await assertSafeTargetUrl(url, { allowPrivate: options.allowPrivate, resolve, field: FIELD });
    try {
      return await request(url, {
        method: "GET",
        dispatcher,
        signal,
        headers: { accept: "image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1" },
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    } catch (error) {
      if (signal.aborted) throw cannotFetch(`no answer within ${options.timeoutMs} ms`);
      const code = (error as NodeJS.ErrnoException).code;
      // The guarded connector refuses an internal address it was about to connect to.
      if (code === "EBLOCKEDADDRESS") throw cannotFetch("its host resolves to an address that is not public");
      throw cannotFetch(`the connection failed (${code ?? "network error"})`);
    }
  }

  return {
    /** The bytes at `url` (VALIDATION_FAILED naming `src` when they cannot be had). */
    async fetch(url: string): Promise<Buffer> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      try {
        let current = url;
        for (let hop = 0; ; hop++) {
          const answer = await fetchOnce(current, controller.signal);
          if (answer.statusCode >= 300 && answer.statusCode < 400 && answer.headers.location) {
            await answer.body.dump({ limit: 0 }).catch(() => undefined);
            if (hop >= MAX_REDIRECTS) throw cannotFetch(`more than ${MAX_REDIRECTS} redirects`);
            const location = String(answer.headers.location);
            try {
              current = new URL(location, current).toString();
            } catch {
              throw cannotFetch("it redirects to an invalid URL");
            }
            continue;
          }
          if (answer.statusCode !== 200) {
            await answer.body.dump({ limit: 0 }).catch(() => undefined);
            throw cannotFetch(`the server answered ${answer.statusCode}`);
          }
          const declared = Number(answer.headers["content-length"]);
          if (Number.isFinite(declared) && declared > options.maxBytes) {
            answer.body.destroy();
            throw cannotFetch(`it is larger than ${options.maxBytes} bytes`);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          try {
            for await (const chunk of answer.body) {
              size += (chunk as Buffer).length;
              if (size > options.maxBytes) {
                answer.body.destroy();
                throw cannotFetch(`it is larger than ${options.maxBytes} bytes`);
              }
              chunks.push(chunk as Buffer);
            }
          } catch (error) {
            if (error instanceof AppError) throw error;
            if (controller.signal.aborted) throw cannotFetch(`no answer within ${options.timeoutMs} ms`);
            throw cannotFetch("the transfer broke off");
          }
          return Buffer.concat(chunks, size);
        }
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.destroy(),
  };
}
export type ImageFetcher = ReturnType<typeof createImageFetcher>;
