/**
 * Store traffic simulator: `npm run simulate -- --store demo-store --rate 60/min`.
 *
 * Signs in to the dashboard as the store's owner and, at a steady rate, creates customers, places
 * orders for variants of active products in stock, and moves open orders through their statuses (the legal
 * transitions of `src/contracts/statuses.ts`, now and then a cancellation), so app developers can
 * watch `customer.created` and `order.*` events reach their subscriptions without clicking. A
 * progress line shows what it did; Ctrl-C stops it with a summary.
 *
 * Exit codes: 0 done (or stopped), 1 the platform refused to sign in or the store is not there,
 * 2 bad arguments.
 */
import { parseArgs } from "node:util";
import { ORDER_STATUSES, OrderStatus } from "../src/contracts/statuses.ts";

export interface SimulateOptions {
  baseUrl: string;
  store: string;
  email: string;
  password: string;
  /** Actions per minute. */
  perMinute: number;
  /** Stop after this many actions (default: run until stopped or `durationMs`). */
  count?: number;
  durationMs?: number;
  /** Progress output; `null` for none. */
  out?: NodeJS.WritableStream | null;
  random?: () => number;
  signal?: AbortSignal;
}

export interface SimulateResult {
  customers: number;
  orders: number;
  statusChanges: number;
  products: number;
  errors: number;
}

const FIRST = ["Layla", "Omar", "Sara", "Yusuf", "Mona", "Karim", "Nour", "Ali", "Hana", "Zaid"];
const LAST = ["Haddad", "Nasser", "Saleh", "Khalil", "Mansour", "Aziz", "Farouk", "Qasim"];
const GOODS = ["Linen shirt", "Canvas tote", "Ceramic mug", "Wool scarf", "Leather wallet", "Cotton cap"];

/** "60/min", "2/s", "600/h" -> actions per minute. */
export function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*\/\s*(s|sec|m|min|h|hour)$/.exec(text.trim());
  if (!match) throw new Error(`--rate must look like 60/min, 2/s or 600/h, got "${text}"`);
  const n = Number(match[1]);
  const unit = match[2]!;
  const perMinute = unit.startsWith("s") ? n * 60 : unit.startsWith("h") ? n / 60 : n;
  if (!(perMinute > 0) || perMinute > 60_000) throw new Error("--rate must be between 1/h and 1000/s");
  return perMinute;
}

class DashboardSession {
  private cookie = "";
  private readonly baseUrl: string;
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }
  async call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const url = new URL(path, this.baseUrl);
    const res = await fetch(url, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
      // fetch says only "fetch failed": name the URL and why (ECONNREFUSED, ENOTFOUND, ...).
      const why = error.cause?.code ?? error.cause?.message ?? error.message;
      throw new Error(`${method} ${url.origin}${url.pathname} failed: ${why}`);
    });
    const session = res.headers.getSetCookie().find((c) => c.startsWith("mp_session="));
    if (session) this.cookie = session.split(";")[0]!;
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }
}

export async function simulate(options: SimulateOptions): Promise<SimulateResult> {
  const random = options.random ?? Math.random;
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const out = options.out === undefined ? process.stderr : options.out;
  const session = new DashboardSession(options.baseUrl);
  const login = await session
    .call("POST", "/api/v1/dashboard/auth/login", {
      email: options.email,
      password: options.password,
    })
    .catch((error: Error) => {
      throw new SimulateError(`${error.message}: is the platform running there? (--base-url)`);
    });
  if (login.status !== 200)
    throw new SimulateError(`sign-in refused (${login.status}): ${login.body?.message ?? ""}`);
  const base = `/api/v1/dashboard/stores/${encodeURIComponent(options.store)}`;
  const result: SimulateResult = { customers: 0, orders: 0, statusChanges: 0, products: 0, errors: 0 };
  let lastError = "";

  const list = async (what: string, query = "limit=100") => {
    const res = await session.call("GET", `${base}/${what}?${query}`);
    if (res.status === 404) throw new SimulateError(`store "${options.store}" not found for this account`);
    if (res.status !== 200) throw new SimulateError(`listing ${what} answered ${res.status}`);
    return res.body.data as any[];
  };
  /** The variants there is something of to sell (an untracked one always can be sold). */
  const sellable = (ps: any[]) =>
    ps.flatMap((p) => (p.variants as any[]).filter((v) => !v.tracked || v.available > 0));
  let products = sellable(await list("products", "limit=100&status=active"));
  const customers = (await list("customers")).map((c) => c.id as string);
  const open = new Map<string, OrderStatus>();
  for (const o of await list("orders"))
    if (ORDER_STATUSES[o.status as OrderStatus].next.length) open.set(o.id, o.status);

  const note = (res: { status: number; body: any }, ok: number) => {
    if (res.status === ok) return true;
    result.errors++;
    lastError = `${res.status} ${res.body?.error?.code ?? ""} ${res.body?.message ?? ""}`.trim();
    return false;
  };

  const actions = {
    async restock() {
      const res = await session.call("POST", `${base}/products`, {
        title: `${pick(GOODS)} ${Math.floor(random() * 900 + 100)}`,
        variants: [
          {
            price: `${Math.floor(random() * 90 + 5)}.${String(Math.floor(random() * 100)).padStart(2, "0")}`,
            inventoryQuantity: 50 + Math.floor(random() * 50),
          },
        ],
      });
      if (note(res, 201)) {
        result.products++;
        products.push(...sellable([res.body.data]));
      }
    },
    async customer() {
      const first = pick(FIRST);
      const last = pick(LAST);
      const res = await session.call("POST", `${base}/customers`, {
        email:
          `${first}.${last}.${Date.now().toString(36)}${Math.floor(random() * 1e4)}@example.com`.toLowerCase(),
        firstName: first,
        lastName: last,
      });
      if (note(res, 201)) {
        result.customers++;
        customers.push(res.body.data.id);
      }
    },
    async order() {
      if (!products.length) return actions.restock();
      if (!customers.length) return actions.customer();
      const items = new Map<string, number>();
      for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++)
        items.set(pick(products).id, 1 + Math.floor(random() * 2));
      const res = await session.call("POST", `${base}/orders`, {
        customerId: pick(customers),
        lineItems: [...items].map(([variantId, quantity]) => ({ variantId, quantity })),
      });
      if (note(res, 201)) {
        result.orders++;
        open.set(res.body.data.id, res.body.data.status);
      } else if (res.status === 409 || res.status === 400) {
        // Out of stock or a product gone: look at the catalogue again.
        products = sellable(await list("products", "limit=100&status=active"));
      }
    },
    async advance() {
      if (!open.size) return actions.order();
      const [id, status] = pick([...open]);
      const next = ORDER_STATUSES[status].next as readonly OrderStatus[];
      const forward = next.filter((s) => s !== OrderStatus.cancelled);
      const cancellable = next.includes(OrderStatus.cancelled);
      const to = cancellable && (random() < 0.1 || !forward.length) ? OrderStatus.cancelled : forward[0]!;
      const res = await session.call("POST", `${base}/orders/${id}/status`, { status: to });
      if (note(res, 200)) {
        result.statusChanges++;
        if (ORDER_STATUSES[to].next.length) open.set(id, to);
        else open.delete(id);
      } else open.delete(id);
    },
  };

  const started = Date.now();
  const interval = 60_000 / options.perMinute;
  const tty = Boolean(out && "isTTY" in out && (out as { isTTY?: boolean }).isTTY);
  const line = () =>
    `${result.customers} customers, ${result.orders} orders, ${result.statusChanges} status changes, ${result.errors} errors` +
    ` · ${options.perMinute}/min · ${Math.round((Date.now() - started) / 1000)} s${lastError ? ` · last error: ${lastError}` : ""}`;
  let done = 0;
  for (;;) {
    if (options.signal?.aborted) break;
    if (options.count !== undefined && done >= options.count) break;
    if (options.durationMs !== undefined && Date.now() - started >= options.durationMs) break;
    const roll = random();
    const action = roll < 0.2 ? actions.customer : roll < 0.55 ? actions.order : actions.advance;
    try {
      await action();
    } catch (error) {
      if (error instanceof SimulateError) throw error;
      result.errors++;
      lastError = (error as Error).message;
    }
    done++;
    if (out) {
      if (tty) out.write(`\r\x1b[2K${line()}`);
      else if (done % 10 === 0) out.write(`${line()}\n`);
    }
    // Steady rate: the next action is due `interval` after the previous one was due.
    const due = started + done * interval - Date.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
  }
  if (out) out.write(`${tty ? "\r\x1b[2K" : ""}${line()}\n`);
  return result;
}

export class SimulateError extends Error {}

const USAGE =
  "usage: npm run simulate -- --store <slug> [--rate 60/min] [--email owner@example.com] --password <password> [--base-url http://localhost:3000] [--count N] [--duration 10m]";

async function main() {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        store: { type: "string" },
        rate: { type: "string", default: "60/min" },
        "base-url": { type: "string", default: process.env.PLATFORM_URL ?? "http://localhost:3000" },
        email: { type: "string", default: process.env.SIMULATE_EMAIL ?? "demo@example.com" },
        password: { type: "string", default: process.env.SIMULATE_PASSWORD },
        count: { type: "string" },
        duration: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }) as unknown as { values: Record<string, string | undefined> });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (!values.store) throw new Error("--store <slug> is required");
    if (!values.password)
      throw new Error("--password (or SIMULATE_PASSWORD) is required: the store owner's password");
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  process.once("SIGTERM", () => controller.abort());
  try {
    const duration = values.duration ? /^(\d+)(s|m|h)$/.exec(values.duration) : null;
    if (values.duration && !duration) throw new Error("--duration must look like 30s, 10m or 2h");
    await simulate({
      baseUrl: values["base-url"]!,
      store: values.store!,
      email: values.email!,
      password: values.password!,
      perMinute: parseRate(values.rate!),
      ...(values.count ? { count: Number(values.count) } : {}),
      ...(duration
        ? { durationMs: Number(duration[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[duration[2] as "s"] }
        : {}),
      signal: controller.signal,
    });
  } catch (error) {
    process.stderr.write(`\n${(error as Error).message}\n`);
    process.exit(error instanceof SimulateError ? 1 : 2);
  }
}

if (import.meta.main) await main();
