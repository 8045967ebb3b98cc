import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { after, afterEach, before, describe, it, type TestContext as TestRun } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { KEY_SCOPE_NAMES, SCOPE_NAMES } from "../src/contracts/index.ts";
import { ERROR_CODES } from "../src/lib/errors.ts";
import type { App } from "../src/lib/http/types.ts";
import { REDIRECT } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type Answer,
  apiClient,
  createTestContext,
  injectAny,
  type Json,
  type KeyScope,
  merchantWithStore,
  type Scope,
  type TestContext,
  text,
} from "./harness.ts";
import { HOSTILE_TEXT } from "./hostile-inputs.ts";
import { fetchDocument, inlineRefs, isRfc, type Operation, operationsOf } from "./openapi-doc.ts";
import { rawRequest } from "./raw-http.ts";

/**
 * Walks every operation of the served OpenAPI document and attacks it: malformed and mistyped JSON,
 * unknown fields, oversized strings and bodies, wrong content types, hostile path ids, query values
 * and credentials, SQL-looking and control-character text, markup, `javascript:` links, bidi
 * overrides, 10,000-character words and path-like text (test/hostile-inputs.ts, which the browser
 * test renders), another tenant's ids. Every answer must
 * be below 500, a 4xx where the input was bad (the document's own schemas decide, with Ajv, which
 * inputs are bad), the documented failure envelope with a code from the closed list, and free of
 * stack traces, SQL and library messages. Routes added later are attacked without edits here; an
 * operation whose security scheme this file cannot satisfy fails the test (add it to CREDENTIALS).
 *
 * One test per family of attacks, each over every operation. The families run in order on one
 * database: reads first (their answers are the real ids the others use), and the whole-body
 * family last, since a route without a body acts on the bodies it ignores (the deletes happen
 * there). Random choices are seeded: a failure prints the seed to replay it with (TEST_SEED).
 *
 * The fuzzer reads the document's schemas and sends and reads what they do not describe, through
 * app.inject and raw sockets: its values are plain JSON (`Json`) on purpose. Only the world it
 * sets up (a merchant, an app, a key pair) goes through the typed client.
 */

const BODY_LIMIT = 16_384;
const HUGE = "h".repeat(100 * 1024);
/** The bodies an upload of this size allows: IMAGE_UPLOAD_MAX_BYTES' smallest. */
const IMAGE_UPLOAD_MAX_BYTES = 65_536;
/** The body limit an operation documents (`x-body-limit`), or the file's BODY_LIMIT. */
const bodyLimitOf = (o: Operation): number => (o.op["x-body-limit"] as number | undefined) ?? BODY_LIMIT;
const SQLISH = [
  "' OR 1=1 --",
  "'; DROP TABLE products; --",
  '" OR ""="',
  "1) UNION SELECT password_hash FROM accounts --",
];
/** NUL (PostgreSQL text cannot hold it), a lone surrogate, a bidi override, a wide ligature, an emoji. */
const NASTY = "nul\u0000byte \ud800 \u202e\ufdfd 🙂";
// Every scope the contract offers: a new one (and its operations) is attacked without an edit here.
const ALL_SCOPES: Scope[] = [...SCOPE_NAMES];
const KEY_SCOPES: KeyScope[] = [...KEY_SCOPE_NAMES];
const CODES = new Set(Object.keys(ERROR_CODES));
const AUTH_CODES = ["UNAUTHENTICATED", "INVALID_TOKEN", "INVALID_CREDENTIALS"];
const BAD_PATH_CODES = ["VALIDATION_FAILED", "BAD_REQUEST", "NOT_FOUND"];
/**
 * Well-formed RFC 3339 date-times the databases cannot take back (outside years 1-9999 once in UTC)
 * or JavaScript cannot hold (a leap second). ajv-formats, which judges the rest, accepts them; the
 * platform refuses them with 400 `VALIDATION_FAILED` wherever a date-time is accepted.
 */
const UNSTORABLE_DATES = [
  "0000-12-31T23:59:59.999Z",
  "0001-01-01T00:00:00+00:01",
  "9999-12-31T23:59:59-23:59",
  "9999-12-31T23:59:59.9999-00:01",
  "2999-12-31T23:59:60Z",
];

/** Signs of internals in a response body (after the attack strings themselves are removed). */
const LEAKS: Array<[string, RegExp]> = [
  ["stack trace", /(?:^|\\n|\n)\s*at \S/],
  ["stack frame", /\bat (?:async )?[\w$.<>[\] ]*\(?(?:file:\/\/|node:|\/)[^\s)]*:\d+/],
  ["source path", /\.(?:ts|js|mjs|cjs):\d+|node_modules|\/work\/|\/src\/|node:internal/],
  ["SQL", /\bselect\b[\s\S]{0,200}\bfrom\b|\binsert into\b|\bupdate\b[\s\S]{0,100}\bset\b|\bdelete from\b/i],
  ["SQL", /\breturning\b|relation "|\bdoes not exist\b|syntax error|\bviolates\b|duplicate key|SQLSTATE/i],
  [
    "SQL",
    /invalid input (?:syntax|value)|invalid byte sequence|out of range for type|value too long for type/i,
  ],
  ["SQL", /null value in column|\bpg_\w+|"(?:routine|severity|sqlState|internalQuery|constraint|table)"\s*:/],
  ["library", /FST_[A-Z_]+|Unexpected (?:token|end of JSON|non-whitespace)|JSON at position|Route [A-Z]+:\//],
  [
    "library",
    /Body cannot be empty|Request body is too large|Unsupported Media Type|\b(?:body|querystring|params|headers)\/\S* must\b/,
  ],
  [
    "library",
    /Cannot read propert|is not a function|is not defined|\b(?:TypeError|ReferenceError|RangeError)\b/,
  ],
  [
    "library",
    /\b(?:kysely|pglite|ajv|typebox|fastify|secure-json-parse)\b|ECONN(?:REFUSED|RESET)|ETIMEDOUT|ENOTFOUND/i,
  ],
];
/** In the human-readable messages only (user data may legitimately contain these words). */
const MESSAGE_LEAKS = /\bundefined\b|\[object Object\]|\bNaN\b/;

type Headers = Record<string, string>;

/**
 * A merchant with everything a request can need: a store with a product, a customer and an order,
 * an app of their own installed in it (so the app's delivery log is theirs too), an Admin API
 * token, a developer key pair and a webhook subscription. Credentials are re-checked after any
 * successful state change (an attack may log out, uninstall or revoke) and re-made when dead.
 */
class World {
  readonly pool = new Map<string, Set<string>>();
  /** Values a schema cannot tell (secrets, the store a token is for), by property name. */
  readonly known: Record<string, string> = { grant_type: "authorization_code" };
  private verified = new Set<string>();
  private cookie = "";
  private token = "";
  private key = { keyId: "", secret: "" };
  readonly app: App;
  readonly label: string;
  readonly email: string;
  readonly password: string;
  readonly slug: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly outboxKey: string | null;
  constructor(
    app: App,
    label: string,
    identity: {
      email: string;
      password: string;
      slug: string;
      clientId: string;
      clientSecret: string;
      /** The operator's key to the local mail outbox (null when mail goes to an SMTP server). */
      outboxKey: string | null;
    },
  ) {
    this.outboxKey = identity.outboxKey;
    this.app = app;
    this.label = label;
    this.email = identity.email;
    this.password = identity.password;
    this.slug = identity.slug;
    this.clientId = identity.clientId;
    this.clientSecret = identity.clientSecret;
    Object.assign(this.known, {
      slug: this.slug,
      storeSlug: this.slug,
      clientId: this.clientId,
      client_id: this.clientId,
      clientSecret: this.clientSecret,
      client_secret: this.clientSecret,
      redirectUri: REDIRECT,
      redirect_uri: REDIRECT,
    });
  }

  static async create(app: App, label: string, outboxKey: string | null = null): Promise<World> {
    const m = await merchantWithStore(app);
    const registered = await m.client.POST("/api/v1/dashboard/apps", {
      body: {
        name: `${label} app`,
        redirectUris: [REDIRECT],
        scopes: ALL_SCOPES,
      },
    });
    must(registered, 201, "register an app");
    const world = new World(app, label, {
      email: m.email,
      password: m.password,
      slug: m.slug,
      clientId: registered.data!.data.clientId,
      clientSecret: registered.data!.data.clientSecret,
      outboxKey,
    });
    world.cookie = m.client.jar.cookie!;
    const dashboard = apiClient(app, { headers: { cookie: world.cookie } });
    const api = apiClient(app, { headers: { authorization: `Bearer ${await world.accessToken()}` } });
    must(
      await api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.created",
          targetUrl: "https://127.0.0.1:9/hook",
        },
      }),
      201,
      "subscribe to order.created",
    );
    const product = await dashboard.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({
        title: "Robust mug",
        price: "12.50",
        stock: 9,
      }),
    });
    must(product, 201, "create a product");
    const customer = await dashboard.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: {
        email: `${label}-customer@example.com`,
        firstName: "Robin",
      },
    });
    must(customer, 201, "create a customer");
    must(
      await dashboard.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: customer.data!.data.id,
          lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
        },
      }),
      201,
      "create an order",
    );
    await world.apiKey();
    return world;
  }

  /** Every successful change may have ended a credential: check them again before the next use. */
  changed() {
    this.verified.clear();
  }

  private async alive(scheme: string, probe: () => Promise<number>): Promise<boolean> {
    if (this.verified.has(scheme)) return true;
    if ((await probe()) !== 200) return false;
    this.verified.add(scheme);
    return true;
  }

  private get(url: string, headers: Headers) {
    return this.app.inject({ method: "GET", url, headers }).then((r) => r.statusCode);
  }

  async sessionCookie(): Promise<string> {
    if (
      this.cookie &&
      (await this.alive("cookie", () => this.get("/api/v1/dashboard/me", { cookie: this.cookie })))
    )
      return this.cookie;
    const client = apiClient(this.app);
    must(
      await client.POST("/api/v1/dashboard/auth/login", {
        body: { email: this.email, password: this.password },
      }),
      200,
      "log in",
    );
    this.cookie = client.jar.cookie!;
    this.verified.add("cookie");
    return this.cookie;
  }

  /** The operator's outbox cookie, as the outbox page gets it: the key from the start log's link. */
  async outboxCookie(): Promise<string> {
    if (!this.outboxKey) throw new Error("setup: no local mail outbox");
    const res = await this.app.inject({
      method: "POST",
      url: "/api/v1/dashboard/mail-outbox/session",
      payload: { key: this.outboxKey },
    });
    if (res.statusCode !== 200) throw new Error(`setup: open the outbox: ${res.statusCode} ${res.body}`);
    const cookie = res.cookies.find((c) => c.name === "mp_outbox");
    return `${cookie!.name}=${cookie!.value}`;
  }

  async accessToken(): Promise<string> {
    const probe = () => this.get("/api/v1/apps/api/webhooks", { authorization: `Bearer ${this.token}` });
    if (this.token && (await this.alive("bearer", probe))) return this.token;
    const merchant = apiClient(this.app, { headers: { cookie: await this.sessionCookie() } });
    const consent = await merchant.POST("/api/v1/dashboard/oauth/consent", {
      body: {
        clientId: this.clientId,
        redirectUri: REDIRECT,
        scopes: ALL_SCOPES,
        state: "robust",
        storeSlug: this.slug,
        approve: true,
      },
    });
    must(consent, 200, "consent");
    const code = new URL(consent.data!.data.redirectTo).searchParams.get("code")!;
    const tokens = await apiClient(this.app).POST("/api/v1/apps/token", {
      body: {
        slug: this.slug,
        code,
        redirectUri: REDIRECT,
        clientId: this.clientId,
        clientSecret: this.clientSecret,
      },
    });
    must(tokens, 200, "exchange the code");
    this.token = tokens.data!.data.accessToken;
    this.verified.add("bearer");
    return this.token;
  }

  async apiKey(): Promise<{ keyId: string; secret: string }> {
    const probe = () =>
      this.get("/api/v1/developer/store", { "x-api-key": this.key.keyId, "x-api-secret": this.key.secret });
    if (this.key.keyId && (await this.alive("key", probe))) return this.key;
    const merchant = apiClient(this.app, { headers: { cookie: await this.sessionCookie() } });
    const created = await merchant.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: this.slug } },
      body: {
        name: `${this.label} key`,
        scopes: KEY_SCOPES,
      },
    });
    must(created, 201, "create an API key");
    this.key = { keyId: created.data!.data.keyId, secret: created.data!.data.secret };
    this.verified.add("key");
    return this.key;
  }

  /** Remembers the strings of a response under the property names they appeared with. */
  harvest(value: unknown, name = "") {
    if (typeof value === "string" && value.length <= 200) {
      if (!this.pool.has(name)) this.pool.set(name, new Set());
      this.pool.get(name)!.add(value);
    } else if (Array.isArray(value)) for (const v of value) this.harvest(v, name);
    else if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value)) this.harvest(v, k);
  }
}

/**
 * Valid credentials of the world's merchant for each security scheme of the document. An operation
 * using a scheme missing here fails the test: whoever adds a scheme adds its credentials here.
 */
const CREDENTIALS: Record<string, (world: World) => Promise<Headers>> = {
  sessionCookie: async (w) => ({ cookie: await w.sessionCookie() }),
  mailOutboxCookie: async (w) => ({ cookie: await w.outboxCookie() }),
  appOAuth: async (w) => ({ authorization: `Bearer ${await w.accessToken()}` }),
  developerKey: async (w) => ({ "x-api-key": (await w.apiKey()).keyId }),
  developerSecret: async (w) => ({ "x-api-secret": (await w.apiKey()).secret }),
};

function must(res: Answer, status: number, what: string) {
  if (res.response.status !== status) throw new Error(`setup: ${what}: ${res.response.status} ${text(res)}`);
}

function types(schema: Json): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

function mainType(schema: Json): string | undefined {
  return (
    types(schema).find((t) => t !== "null") ??
    (schema.properties ? "object" : schema.items ? "array" : types(schema)[0])
  );
}

/**
 * Every choice the attacks make at random comes from one generator seeded here, so a failing run
 * can be replayed: `TEST_SEED=<seed> npm test -- test/robustness*.test.ts` (the seed is printed on
 * failure). Ids the platform makes itself stay random; the attacks built around them do not.
 */
const SEED = process.env.TEST_SEED ? Number(process.env.TEST_SEED) >>> 0 : randomInt(2 ** 32);
if (process.env.TEST_SEED && String(SEED) !== process.env.TEST_SEED.trim())
  throw new Error(`TEST_SEED must be an integer from 0 to ${2 ** 32 - 1}, not ${process.env.TEST_SEED}`);

/** mulberry32: a small, fast generator of floats in [0, 1), ample for choosing test values. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
const random = mulberry32(SEED);
const pick = (chars: string | string[]) => chars[Math.floor(random() * chars.length)]!;

/** MurmurHash3's 32-bit finaliser: a bijection, so distinct counters give distinct suffixes. */
function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
let suffixes = Math.floor(random() * 2 ** 32);
/** Eight hex characters, never the same twice in a run (e-mails, SKUs and slugs must not collide). */
function rand(): string {
  suffixes = (suffixes + 1) >>> 0;
  return fmix32(suffixes).toString(16).padStart(8, "0");
}

/** A version 4 UUID from the seeded generator. */
function seededUuid(): string {
  const hex = Array.from({ length: 32 }, () => pick("0123456789abcdef"));
  hex[12] = "4";
  hex[16] = pick("89ab");
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A string matching a simple pattern (literals, escapes, classes, groups, quantifiers; no `|`). */
function fromPattern(pattern: string): string | undefined {
  let i = 0;
  const classChars = (body: string): string[] => {
    const chars: string[] = [];
    for (let j = 0; j < body.length; j++) {
      let c = body[j]!;
      if (c === "\\") {
        const e = body[++j]!;
        chars.push(...({ d: "0123456789", w: "abc", s: " ", S: "abc" }[e] ?? e));
        continue;
      }
      if (body[j + 1] === "-" && j + 2 < body.length) {
        const end = body[j + 2]!;
        for (let code = c.charCodeAt(0); code <= end.charCodeAt(0); code++)
          chars.push(String.fromCharCode(code));
        j += 2;
        continue;
      }
      c = body[j]!;
      chars.push(c);
    }
    return chars;
  };
  const sequence = (): Array<() => string> => {
    const atoms: Array<() => string> = [];
    while (i < pattern.length && pattern[i] !== ")") {
      const c = pattern[i++]!;
      let atom: () => string;
      if (c === "|") throw new Error("alternation");
      if (c === "^" || c === "$") continue;
      if (c === "\\") {
        const e = pattern[i++]!;
        const set = { d: "0123456789", w: ALNUM, s: " ", S: ALNUM }[e];
        atom = () => (set ? pick(set) : e);
      } else if (c === "[") {
        const start = i;
        while (pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
        const body = pattern.slice(start, i++);
        if (body.startsWith("^")) {
          const excluded = new Set(classChars(body.slice(1)));
          const allowed = [..."abcxyz019"].find((ch) => !excluded.has(ch)) ?? "q";
          atom = () => allowed;
        } else {
          const chars = classChars(body);
          atom = () => pick(chars);
        }
      } else if (c === "(") {
        if (pattern.startsWith("?:", i)) i += 2;
        const inner = sequence();
        i++; // ")"
        atom = () => inner.map((a) => a()).join("");
      } else if (c === ".") atom = () => pick(ALNUM);
      else atom = () => c;
      let count = 1;
      const q = pattern[i];
      if (q === "?" || q === "*" || q === "+") i++;
      else if (q === "{") {
        const close = pattern.indexOf("}", i);
        const [min = "1"] = pattern.slice(i + 1, close).split(",");
        count = Math.max(Number(min), 1);
        i = close + 1;
      }
      atoms.push(() => Array.from({ length: count }, atom).join(""));
    }
    return atoms;
  };
  try {
    const value = sequence()
      .map((a) => a())
      .join("");
    return new RegExp(pattern, "u").test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface Attack {
  label: string;
  method: string;
  url: string;
  headers: Headers;
  payload?: string;
  /** The input is bad: the answer must be a 4xx. */
  bad: boolean;
  /** When bad, the answer's error.code must be one of these (envelope operations only). */
  codes?: string[] | undefined;
  /** The answer must be exactly this status. */
  status?: number;
}

/** One operation ready to be attacked: real ids, a valid query and body, what its credentials are. */
interface Target {
  o: Operation;
  method: string;
  params: Json[];
  pathParams: Json[];
  queryParams: Json[];
  jsonBody: Json | undefined;
  formBody: Json | undefined;
  bodySchema: Json | undefined;
  /** The first security requirement this file can satisfy. */
  requirement: Json | undefined;
  documents401: boolean;
  /** Real values of the path parameters, and another tenant's where it has one. */
  values: Record<string, string>;
  foreign: Record<string, string>;
  /** A path parameter had no real value and was made up. */
  synthetic: boolean;
  querySchema: Json;
  baseQuery: Record<string, string>;
  url: string;
  baseBody: unknown;
  baseValid: boolean;
  contentType: string | undefined;
  stateChanging: boolean;
  basePayload: string | undefined;
  /** The operation's credentials, checked alive (and re-made if an attack ended them) before each use. */
  auth(): Promise<Headers>;
  encode(value: unknown): string;
  baseHeaders(): Headers;
}

const withQuery = (url: string, q: Record<string, string>) =>
  Object.keys(q).length ? `${url}?${new URLSearchParams(q)}` : url;

function fill(path: string, values: Record<string, string>, raw: Record<string, string> = {}) {
  return path.replace(
    /\{(\w+)\}/g,
    (_m, name: string) => raw[name] ?? encodeURIComponent(values[name] ?? "x"),
  );
}

/**
 * `value` with its middle character changed, never back to itself and never only in bits a
 * decoder ignores (an id ending in "zz", one in 3,844, made the old "last two to zz" the key itself).
 */
function tampered(value: string): string {
  const i = Math.floor(value.length / 2);
  return `${value.slice(0, i)}${value[i] === "A" ? "B" : "A"}${value.slice(i + 1)}`;
}

/**
 * Everything the attack families share: the document's operations, values built from its schemas
 * and the worlds' answers, and `send`, which judges each answer against the document.
 */
function createArsenal(app: App, doc: Json, worlds: { own: World; other: World }) {
  const { own, other } = worlds;
  const notes: string[] = [];
  const tally = { requests: 0, byStatus: new Map<number, number>() };
  // Reads first (their answers fill the pool of real ids the others are attacked with), deletes last.
  const rank = (o: Operation) => (o.method === "get" ? 0 : o.method === "delete" ? 2 : 1);
  const operations = operationsOf(doc).sort((a, b) => rank(a) - rank(b) || a.path.length - b.path.length);

  const bodyAjv = new Ajv({ strict: false, allErrors: false, useDefaults: true, coerceTypes: false });
  const textAjv = new Ajv({ strict: false, allErrors: false, useDefaults: true, coerceTypes: "array" });
  const responseAjv = new Ajv({ strict: false, allErrors: true });
  for (const ajv of [bodyAjv, textAjv, responseAjv]) addFormats.default(ajv);
  // Compiled once per schema: by identity first (the same schema object is asked about thousands
  // of times, and stringifying it for the key cost more than validating), then by content.
  const byContent = new Map<string, ValidateFunction>();
  const byIdentity = new Map<Ajv, WeakMap<object, ValidateFunction>>();
  const validator = (ajv: Ajv, schema: unknown) => {
    const identity = byIdentity.get(ajv) ?? new WeakMap<object, ValidateFunction>();
    byIdentity.set(ajv, identity);
    let v = identity.get(schema as object);
    if (v) return v;
    const key = `${ajv === bodyAjv ? "b" : ajv === textAjv ? "t" : "r"}${JSON.stringify(schema)}`;
    v = byContent.get(key);
    if (!v) {
      v = ajv.compile(schema as object);
      byContent.set(key, v);
    }
    identity.set(schema as object, v);
    return v;
  };
  const valid = (ajv: Ajv, schema: unknown, value: unknown) =>
    validator(ajv, schema)(value === undefined ? undefined : structuredClone(value));
  /** inlineRefs, once per node of the document (the result is only read, never changed). */
  const inlined = new WeakMap<object, Json>();
  const inline = (node: Json): Json => {
    let out = inlined.get(node);
    if (!out) {
      out = inlineRefs(doc, node) as Json;
      inlined.set(node, out);
    }
    return out;
  };
  const envelopeSchema = inlineRefs(doc, { $ref: "#/components/schemas/Error" });
  const schemes = (doc.components?.securitySchemes ?? {}) as Json;

  // --- Values: real ones from the worlds' answers, otherwise built from the schema. ---

  const lists = new Map<string, Json[]>();
  const requirementsOf = (op: Json) => (op.security ?? doc.security ?? []) as Json[];
  const usableRequirement = (op: Json) =>
    requirementsOf(op).find((r) => Object.keys(r).every((s) => CREDENTIALS[s]));
  const credentialsFor = async (world: World, op: Json): Promise<Headers | null> => {
    const requirements = requirementsOf(op);
    if (!requirements.length || requirements.some((r) => Object.keys(r).length === 0)) return {};
    const usable = usableRequirement(op);
    if (!usable) return null;
    const headers: Headers = {};
    for (const scheme of Object.keys(usable)) Object.assign(headers, await CREDENTIALS[scheme]!(world));
    return headers;
  };
  const byPath = new Map(operations.map((o) => [`${o.method} ${o.path}`, o]));

  /** A real value of path parameter `name` for `world`: from the list one level up, or seen before. */
  const realParam = async (
    world: World,
    o: Operation,
    name: string,
    schema: Json,
  ): Promise<string | undefined> => {
    const segments = o.path.split("/");
    const at = segments.indexOf(`{${name}}`);
    const listPath = segments.slice(0, at).join("/");
    const list = byPath.get(`get ${listPath}`);
    if (list) {
      const key = `${world.label} ${listPath}`;
      if (!lists.has(key)) {
        lists.set(key, []);
        const values: Record<string, string> = {};
        for (const p of (list.op.parameters ?? []) as Json[])
          if (p.in === "path") {
            const v = await realParam(world, list, p.name, p.schema);
            if (v) values[p.name] = v;
          }
        const headers = await credentialsFor(world, list.op);
        const res = await app.inject({
          method: "GET",
          url: fill(list.path, values),
          headers: headers ?? {},
        });
        const data = res.statusCode === 200 ? res.json().data : undefined;
        if (Array.isArray(data)) lists.set(key, data);
      }
      for (const item of lists.get(key)!) {
        const v = item[name] ?? (name === "id" ? undefined : item.id);
        if (typeof v === "string" && valid(textAjv, schema, v)) return v;
      }
    }
    if (!schema.pattern) return undefined;
    for (const candidates of [world.pool.get(name), ...world.pool.values()])
      for (const v of candidates ?? []) if (valid(textAjv, schema, v)) return v;
    return undefined;
  };

  const stringValue = (schema: Json, name: string): string => {
    const candidates: string[] = own.known[name] ? [own.known[name]] : [];
    // Examples made unique first (e-mails, SKUs and slugs must not collide), then ids seen before.
    const suffix = rand();
    for (const ex of (schema.examples ?? []) as unknown[])
      if (typeof ex === "string") candidates.push(`${suffix}${ex}`, `${ex}${suffix}`);
    for (const v of [...(own.pool.get(name) ?? [])].reverse()) if (schema.pattern) candidates.push(v);
    for (const ex of (schema.examples ?? []) as unknown[]) if (typeof ex === "string") candidates.push(ex);
    if (schema.format === "email") candidates.push(`robust-${suffix}@example.com`);
    if (schema.format === "uri") candidates.push(`https://example.com/${suffix}`);
    if (schema.format === "date-time") candidates.push(new Date(Date.now() + 30 * 86_400_000).toISOString());
    if (schema.format === "date") candidates.push("2030-01-31");
    if (schema.format === "uuid") candidates.push(seededUuid());
    if (schema.pattern) {
      const made = fromPattern(schema.pattern);
      if (made) candidates.push(made);
    }
    candidates.push(`robust ${suffix}`.slice(0, schema.maxLength).padEnd(schema.minLength ?? 0, "x"));
    return candidates.find((c) => valid(bodyAjv, schema, c)) ?? candidates.at(-1)!;
  };

  /**
   * The branch of a union `sample` builds (with the union's own annotations: its examples describe
   * the branch too), or an allOf's parts in one; made once per schema, so the validators compiled
   * for it are found again by identity.
   */
  const mergedOnce = new WeakMap<Json, Json>();
  const merged = (schema: Json): Json => {
    let out = mergedOnce.get(schema);
    if (!out) {
      const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
      const { anyOf: _a, oneOf: _o, ...outer } = schema;
      out = options
        ? { ...outer, ...(options.find((s) => !types(s).includes("null")) ?? options[0]!) }
        : Object.assign({}, ...schema.allOf);
      mergedOnce.set(schema, out!);
    }
    return out!;
  };

  /** A valid instance of `schema`; property names steer which real values are used. */
  const sample = (schema: Json, name = ""): unknown => {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return schema.enum[0];
    const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (options || schema.allOf) return sample(merged(schema), name);
    switch (mainType(schema)) {
      case "string":
        return stringValue(schema, name);
      case "integer":
      case "number": {
        const preferred = [schema.examples?.[0], schema.default, schema.minimum, 1];
        return preferred.find((v) => typeof v === "number" && valid(bodyAjv, schema, v)) ?? 1;
      }
      case "boolean":
        return schema.examples?.[0] ?? schema.default ?? true;
      case "array": {
        const item = schema.items ? sample(schema.items, name) : "x";
        return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => item).slice(
          0,
          schema.uniqueItems ? 1 : undefined,
        );
      }
      case "object":
        return Object.fromEntries(
          Object.entries((schema.properties ?? {}) as Json).map(([k, s]) => [k, sample(s as Json, k)]),
        );
      case "null":
        return null;
      default:
        return "x";
    }
  };

  /** Every node of a sampled instance with the schema it answers to: where to plant attacks. */
  const nodes = (
    schema: Json,
    value: unknown,
    path: Array<string | number>,
    out: Array<{ path: typeof path; schema: Json }>,
  ) => {
    const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    const s = options ? (options.find((o) => valid(bodyAjv, o, value)) ?? options[0]!) : schema;
    out.push({ path, schema: s });
    if (value && typeof value === "object" && !Array.isArray(value))
      for (const [k, v] of Object.entries(value)) {
        const child = s.properties?.[k];
        if (child) nodes(child, v, [...path, k], out);
      }
    if (Array.isArray(value) && value.length && s.items) nodes(s.items, value[0], [...path, 0], out);
    return out;
  };

  // --- Sending and judging. ---

  /**
   * The attack strings a response may legitimately echo, each with the encodings it may come back
   * in, worked out once when the string is first sent (it was once per answer: a quarter of the run).
   */
  const sent = new Map<string, string[]>();
  const remember = (s: string) => {
    if (sent.has(s) || s.length < 4) return;
    const forms = [s, JSON.stringify(s).slice(1, -1), s.toWellFormed()];
    if (s.isWellFormed()) forms.push(encodeURIComponent(s));
    sent.set(s, forms);
  };
  for (const s of [...SQLISH, NASTY, HUGE, ...HOSTILE_TEXT.map(([, text]) => text)]) remember(s);
  /** The text without the attack strings, in any encoding. */
  const strip = (text: string) => {
    let out = text;
    for (const forms of sent.values())
      for (const form of forms) if (out.includes(form)) out = out.split(form).join("");
    return out;
  };
  const htmlPageStatus = (documented: Json, contentType: string) =>
    /html/.test(contentType) && documented?.content?.["text/html"];

  const judge = (
    failures: string[],
    o: Operation,
    a: Attack,
    status: number,
    contentType: string,
    text: string,
    location = "",
  ) => {
    const where = `${o.name} [${a.label}] ${a.method} ${a.url.slice(0, 100)}${a.url.length > 100 ? "…" : ""} -> ${status}`;
    const snippet = text.slice(0, 240);
    const rfc = isRfc(o.op);
    const documented = o.op.responses?.[String(status)] ?? o.op.responses?.default;
    if (status >= 500) failures.push(`5xx: ${where}: ${snippet}`);
    if (a.status !== undefined && status !== a.status)
      failures.push(`expected ${a.status}: ${where}: ${snippet}`);
    // RFC 6749 4.1.2.1: once the client and its redirect URI are verified, the authorization
    // endpoint refuses a bad request by sending the browser back to the app with `error`.
    const oauthRefusal = status === 302 && documented !== undefined && /[?&]error=/.test(location);
    if (a.bad && !oauthRefusal && (status < 400 || status >= 500))
      failures.push(`bad input accepted: ${where}: ${snippet}`);
    let body: Json | undefined;
    if (/json/.test(contentType)) {
      try {
        body = JSON.parse(text);
      } catch {
        failures.push(`unparsable JSON: ${where}: ${snippet}`);
      }
    }
    if (status >= 400) {
      const htmlPage = /html/.test(contentType) && documented?.content?.["text/html"];
      if (htmlPage) {
        // The consent screen's own error page.
      } else if (rfc && body && typeof body.error === "string") {
        if (typeof body.error_description !== "string")
          failures.push(`RFC error without description: ${where}`);
      } else if (
        body?.success !== false ||
        !CODES.has(body.error?.code) ||
        !valid(responseAjv, envelopeSchema, body)
      ) {
        failures.push(`not the failure envelope: ${where}: ${snippet}`);
      } else {
        if (a.bad && a.codes && !rfc && !a.codes.includes(body.error.code))
          failures.push(`expected ${a.codes.join("|")}: ${where}: ${snippet}`);
        for (const m of [body.message, body.error.message])
          if (MESSAGE_LEAKS.test(strip(String(m)))) failures.push(`garbled message: ${where}: ${snippet}`);
      }
    } else if (
      body &&
      !rfc &&
      o.op.responses?.[String(status)]?.content?.["application/json"] &&
      body.success !== true
    ) {
      failures.push(`success without {success: true}: ${where}: ${snippet}`);
    }
    if (!documented && status < 500) failures.push(`undocumented status: ${where}: ${snippet}`);
    const schema = documented?.content?.["application/json"]?.schema;
    if (schema && body && !htmlPageStatus(documented, contentType)) {
      const v = validator(responseAjv, inline(schema));
      if (!v(body))
        failures.push(
          `body does not match the document: ${where}: ${responseAjv.errorsText(v.errors)}: ${snippet}`,
        );
    }
    const clean = strip(text);
    for (const [kind, pattern] of LEAKS) {
      const m = pattern.exec(clean);
      if (m) failures.push(`leaks ${kind} (${JSON.stringify(m[0].slice(0, 60))}): ${where}: ${snippet}`);
    }
  };

  const send = async (failures: string[], o: Operation, a: Attack, world: World = own) => {
    tally.requests++;
    const res = await injectAny(app, {
      method: a.method,
      url: a.url,
      headers: a.headers as Record<string, string>,
      ...(a.payload !== undefined ? { payload: a.payload } : {}),
    });
    tally.byStatus.set(res.statusCode, (tally.byStatus.get(res.statusCode) ?? 0) + 1);
    judge(
      failures,
      o,
      a,
      res.statusCode,
      String(res.headers["content-type"] ?? ""),
      res.body,
      String(res.headers.location ?? ""),
    );
    if (res.statusCode < 300 && a.method !== "GET") world.changed();
    if (res.statusCode < 300 && a.method === "GET" && world === own) {
      try {
        own.harvest(res.json());
      } catch {
        // not JSON (an HTML page)
      }
    }
    return res;
  };

  // --- Credentials: what a scheme's header is, and what must not work in it. ---

  /** Credentials that must not work, per scheme type: [header name, value]. */
  const forgeries = (scheme: string, real: Headers): Array<[string, string]> => {
    const s = schemes[scheme] as Json;
    if (s?.type === "http" && /^bearer$/i.test(s.scheme)) {
      const realToken = (real.authorization ?? "").replace(/^Bearer /, "");
      return [
        ["authorization", `Bearer ${SQLISH[0]}`],
        ["authorization", `Bearer ${"t".repeat(4000)}`],
        ["authorization", "Bearer"],
        ["authorization", "Basic dXNlcjpwYXNz"],
        ["authorization", `Bearer ${tampered(realToken)}`],
      ];
    }
    if (s?.type === "apiKey") {
      const header = s.in === "cookie" ? "cookie" : String(s.name).toLowerCase();
      const wrap = (v: string) => (s.in === "cookie" ? `${s.name}=${v}` : v);
      const realValue =
        s.in === "cookie" ? (real.cookie ?? "").split("=").slice(1).join("=") : (real[header] ?? "");
      return [
        [header, wrap(SQLISH[0]!)],
        [header, wrap("k".repeat(4000))],
        [header, wrap(tampered(realValue))],
      ];
    }
    return [];
  };
  const headerOf = (scheme: string): string | undefined => {
    const s = schemes[scheme] as Json;
    if (s?.type === "http") return "authorization";
    if (s?.type === "apiKey") return s.in === "cookie" ? "cookie" : String(s.name).toLowerCase();
    return undefined;
  };

  /** Real values for the operation's parameters (the worlds' lists and answers so far), a valid body. */
  const target = async (o: Operation): Promise<Target> => {
    const { op, path } = o;
    const method = o.method.toUpperCase();
    const params = (op.parameters ?? []) as Json[];
    const pathParams = params.filter((p) => p.in === "path");
    const queryParams = params.filter((p) => p.in === "query");
    const jsonBody = op.requestBody?.content?.["application/json"]?.schema;
    const formBody = op.requestBody?.content?.["application/x-www-form-urlencoded"]?.schema;
    const bodySchema = (jsonBody ?? formBody) ? inline(jsonBody ?? formBody) : undefined;
    const requirement = usableRequirement(op);

    const values: Record<string, string> = {};
    const foreign: Record<string, string> = {};
    let synthetic = false;
    for (const p of pathParams) {
      const schema = inline(p.schema);
      const real = await realParam(own, o, p.name, schema);
      if (real) values[p.name] = real;
      else {
        values[p.name] = (schema.pattern && fromPattern(schema.pattern)) || "x";
        synthetic = true;
      }
      const theirs = await realParam(other, o, p.name, schema);
      if (theirs && theirs !== real) foreign[p.name] = theirs;
    }
    const querySchema = {
      type: "object",
      properties: Object.fromEntries(queryParams.map((p) => [p.name, inline(p.schema)])),
      required: queryParams.filter((p) => p.required).map((p) => p.name),
    };
    const baseQuery: Record<string, string> = {};
    for (const p of queryParams.filter((q) => q.required))
      baseQuery[p.name] = String(sample(inline(p.schema), p.name));
    const url = withQuery(fill(path, values), baseQuery);

    const baseBody = bodySchema ? sample(bodySchema) : undefined;
    const baseValid = !bodySchema || valid(formBody && !jsonBody ? textAjv : bodyAjv, bodySchema, baseBody);
    if (!baseValid)
      notes.push(
        `${o.name}: could not build a valid body (${JSON.stringify(baseBody).slice(0, 300)}: ${bodyAjv.errorsText(validator(bodyAjv, bodySchema).errors)}); body attacks only check for 4xx`,
      );
    const contentType = jsonBody
      ? "application/json"
      : formBody
        ? "application/x-www-form-urlencoded"
        : undefined;
    const encode = (value: unknown) =>
      jsonBody || !formBody
        ? JSON.stringify(value)
        : new URLSearchParams(
            Object.entries(value as Json).map(([k, v]): [string, string] => [
              k,
              typeof v === "string" ? v : JSON.stringify(v),
            ]),
          ).toString();
    // Dashboard writes must say JSON even without a body (CSRF guard); a JSON content type with an
    // empty body is accepted everywhere as "no body".
    const stateChanging = method !== "GET" && method !== "HEAD";
    return {
      o,
      method,
      params,
      pathParams,
      queryParams,
      jsonBody,
      formBody,
      bodySchema,
      requirement,
      documents401: Boolean(op.responses?.["401"]),
      values,
      foreign,
      synthetic,
      querySchema,
      baseQuery,
      url,
      baseBody,
      baseValid,
      contentType,
      stateChanging,
      basePayload: bodySchema ? encode(baseBody) : undefined,
      auth: async () => (await credentialsFor(own, op)) ?? {},
      encode,
      baseHeaders: (): Headers =>
        stateChanging ? { "content-type": contentType ?? "application/json" } : {},
    };
  };

  /**
   * Every operation made ready, in order. A valid read of each GET operation is sent as soon as it
   * is ready: its answer must succeed (or the attacks would prove nothing), and the real ids in it
   * are what the operations after it are attacked with.
   */
  const prepare = async (baselineFailures: string[]): Promise<Target[]> => {
    const targets: Target[] = [];
    for (const o of operations) {
      const t = await target(o);
      targets.push(t);
      if (t.method !== "GET") continue;
      const res = await send(baselineFailures, o, {
        label: "baseline",
        method: t.method,
        url: t.url,
        headers: { ...(await t.auth()) },
        bad: false,
      });
      if (res.statusCode === 401 || res.statusCode === 403)
        baselineFailures.push(
          `baseline refused: ${o.name}: valid credentials answered ${res.statusCode}: ${res.body.slice(0, 200)}`,
        );
      else if (res.statusCode >= 400 && !t.synthetic && !t.queryParams.some((p) => p.required))
        baselineFailures.push(
          `baseline failed: ${o.name} with real ids answered ${res.statusCode}: ${res.body.slice(0, 200)}`,
        );
      else if (res.statusCode >= 400)
        notes.push(`${o.name}: no real value for a parameter, baseline ${res.statusCode}`);
    }
    return targets;
  };

  return {
    operations,
    notes,
    tally,
    bodyAjv,
    textAjv,
    valid,
    sample,
    nodes,
    inline,
    remember,
    send,
    forgeries,
    headerOf,
    prepare,
  };
}

type Arsenal = ReturnType<typeof createArsenal>;
/** One family of attacks on one operation; `send` judges each answer into `failures`. */
type Family = (k: Arsenal, t: Target, failures: string[]) => Promise<void>;

/** Credentials: each scheme of the requirement missing, then forged. */
const credentialAttacks: Family = async (k, t, failures) => {
  const { o, method, url, requirement, basePayload } = t;
  if (!requirement) return;
  for (const scheme of Object.keys(requirement)) {
    const header = k.headerOf(scheme);
    if (!header) continue;
    const expectation = t.documents401 && t.baseValid ? { status: 401, codes: AUTH_CODES } : {};
    const valid = await t.auth();
    const without = { ...valid };
    delete without[header];
    await k.send(failures, o, {
      label: `no ${scheme}`,
      method,
      url,
      headers: { ...t.baseHeaders(), ...without },
      ...(basePayload !== undefined ? { payload: basePayload } : {}),
      bad: t.documents401,
      ...expectation,
    });
    for (const [name, value] of k.forgeries(scheme, valid)) {
      k.remember(value);
      await k.send(failures, o, {
        label: `forged ${scheme}`,
        method,
        url,
        headers: { ...t.baseHeaders(), ...(await t.auth()), [name]: value },
        ...(basePayload !== undefined ? { payload: basePayload } : {}),
        bad: t.documents401,
        ...expectation,
      });
    }
  }
};

/** Path parameters: malformed, hostile, well-formed but unknown, and another tenant's. */
const pathAttacks: Family = async (k, t, failures) => {
  const { o, method, values, basePayload } = t;
  for (const p of t.pathParams) {
    const real = values[p.name]!;
    const schema = k.inline(p.schema);
    const attacks: Array<[string, string, string[] | undefined]> = [
      [
        "wrong prefix",
        encodeURIComponent(real.includes("_") ? `zzz${real.slice(real.indexOf("_"))}` : `Z${real}`),
        undefined,
      ],
      ["traversal", encodeURIComponent("../../etc/passwd"), undefined],
      ["raw traversal", "../../etc/passwd", undefined],
      ["500 chars", "a".repeat(500), undefined],
      ["unicode", encodeURIComponent("ünïcødé-☃"), undefined],
      ["NUL", "%00", undefined],
      ["bad escape", "%E0%A4%A", undefined],
      ["SQL", encodeURIComponent(SQLISH[0]!), undefined],
      ["negative", "-1", undefined],
    ];
    const unknown = schema.pattern ? fromPattern(schema.pattern) : undefined;
    if (unknown && unknown !== real) attacks.push(["unknown id", encodeURIComponent(unknown), ["NOT_FOUND"]]);
    if (t.foreign[p.name])
      attacks.push(["another tenant's", encodeURIComponent(t.foreign[p.name]!), ["NOT_FOUND"]]);
    for (const [label, segment, codes] of attacks) {
      const exact = codes && t.baseValid && !t.synthetic;
      await k.send(failures, o, {
        label: `path ${p.name}: ${label}`,
        method,
        url: withQuery(fill(o.path, values, { [p.name]: segment }), t.baseQuery),
        headers: { ...t.baseHeaders(), ...(await t.auth()) },
        ...(basePayload !== undefined ? { payload: basePayload } : {}),
        bad: true,
        codes: exact ? codes : BAD_PATH_CODES,
      });
    }
  }
};

const JUNK_CURSORS = [
  "junk",
  Buffer.from('["c",1e400,"x"]').toString("base64url"),
  Buffer.from('["c",-8640000000000001,"x"]').toString("base64url"),
  Buffer.from(`["u",1,"${"i".repeat(60)}"]`).toString("base64url"),
  Buffer.from('{"__proto__":1}').toString("base64url"),
  // One millisecond outside years 1-9999, in the legacy and the present form.
  Buffer.from('["c",-62135596800001,"x"]').toString("base64url"),
  Buffer.from('["u",253402300800000,"x"]').toString("base64url"),
  Buffer.from('["-createdAt",-62135596800001,"x",""]').toString("base64url"),
  Buffer.from('["updatedAt",253402300800000,"x",""]').toString("base64url"),
];

/**
 * Query parameters (out of range, wrong type, junk cursors, bad dates, hostile text), header
 * parameters, and unknown or repeated query parameters (ignored, not refused).
 */
const parameterAttacks: Family = async (k, t, failures) => {
  const { o, method, url, baseQuery, basePayload } = t;
  for (const p of t.queryParams) {
    const schema = k.inline(p.schema);
    const type = mainType(schema);
    const candidates = new Set<string>([
      SQLISH[0]!,
      NASTY,
      "",
      "x".repeat(3000),
      ...HOSTILE_TEXT.map(([, text]) => text),
    ]);
    if (type === "integer" || type === "number")
      for (const v of ["-1", "0", "1.5", "abc", "99999999999999999999", "1e400", "0x10", "NaN"])
        candidates.add(v);
    if (schema.maximum !== undefined) candidates.add(String(schema.maximum + 1));
    if (schema.format === "date-time")
      for (const v of [
        "2026-13-45T99:99:99Z",
        "yesterday",
        "2026-02-30T00:00:00Z",
        "99999-01-01T00:00:00Z",
        ...UNSTORABLE_DATES,
      ])
        candidates.add(v);
    if (schema.enum || schema.anyOf) candidates.add("bogus");
    if (p.name === "cursor") for (const c of JUNK_CURSORS) candidates.add(c);
    for (const v of candidates) {
      const q = { ...baseQuery, [p.name]: v };
      const unstorable = schema.format === "date-time" && UNSTORABLE_DATES.includes(v);
      const schemaBad = unstorable || !k.valid(k.textAjv, t.querySchema, q);
      const junkCursor = p.name === "cursor" && v !== "";
      await k.send(failures, o, {
        label: `query ${p.name}=${v.slice(0, 30)}`,
        method,
        url: withQuery(fill(o.path, t.values), q),
        headers: { ...t.baseHeaders(), ...(await t.auth()) },
        ...(basePayload !== undefined ? { payload: basePayload } : {}),
        bad: schemaBad || junkCursor,
        codes: schemaBad ? ["VALIDATION_FAILED"] : ["VALIDATION_FAILED", "BAD_REQUEST"],
      });
    }
  }
  // Header parameters (Idempotency-Key): empty, spaces at either end (HTTP would drop them; a key
  // that arrives with them is refused, never trimmed into another key), too long.
  for (const p of t.params.filter((q) => q.in === "header")) {
    const schema = k.inline(p.schema);
    for (const v of ["", " lead", "trail ", " ", `k${"x".repeat(300)}`]) {
      const bad = !k.valid(k.textAjv, schema, v);
      await k.send(failures, o, {
        label: `header ${p.name}=${JSON.stringify(v.slice(0, 20))}`,
        method,
        url,
        headers: { ...t.baseHeaders(), ...(await t.auth()), [p.name]: v },
        ...(basePayload !== undefined ? { payload: basePayload } : {}),
        bad,
        codes: ["VALIDATION_FAILED"],
      });
    }
  }
  if (method === "GET") {
    const first = t.queryParams[0];
    await k.send(failures, o, {
      label: "unknown and repeated query parameters",
      method,
      url: `${url}${url.includes("?") ? "&" : "?"}surprise=1&surprise=2${first ? `&${first.name}=1&${first.name}=2` : ""}`,
      headers: await t.auth(),
      bad: false,
    });
  }
};

/** Each field of a valid body in turn: wrong type, out of range, too long, hostile text. */
const fieldAttacks: Family = async (k, t, failures) => {
  const { o, method, url, bodySchema, baseBody, baseValid } = t;
  if (!t.stateChanging || !bodySchema) return;
  const form = Boolean(t.formBody && !t.jsonBody);
  const ajv = form ? k.textAjv : k.bodyAjv;
  let sqlTurn = 0;
  for (const { path: at, schema } of k.nodes(bodySchema, baseBody, [], [])) {
    const type = mainType(schema);
    const field = at.join(".") || "body";
    const mutations: Array<[string, unknown]> = [];
    if (type === "string") {
      mutations.push(
        ["SQL", SQLISH[0]],
        ["SQL", SQLISH[1 + (sqlTurn++ % (SQLISH.length - 1))]],
        ["control characters", NASTY],
        // Taken where the field's rules allow it (and then rendered as text: test/ui/hostile-markup),
        // refused with a 400 where they do not; never a 500.
        ...HOSTILE_TEXT.map(([label, text]): [string, unknown] => [label, text]),
      );
      mutations.push(["100 KB string", HUGE]);
      if (schema.maxLength !== undefined && schema.maxLength < BODY_LIMIT / 2)
        mutations.push(["one over maxLength", "m".repeat(schema.maxLength + 1)]);
      if (!form) mutations.push(["number for string", 12345], ["null", null]);
      if (schema.format === "date-time")
        for (const date of UNSTORABLE_DATES) mutations.push([`unstorable date ${date}`, date]);
    } else if (type === "integer" || type === "number") {
      mutations.push(
        ["negative", -1],
        ["fraction", 1.5],
        ["huge", 1e20],
        ["string for number", "12"],
        ["null", null],
      );
      if (schema.maximum !== undefined) mutations.push(["maximum + 1", schema.maximum + 1]);
    } else if (type === "boolean") mutations.push(["string for boolean", "true"], ["null", null]);
    else if (type === "array") {
      const current = at.reduce<unknown>((node, key) => (node as Json)[key as string], baseBody) as unknown[];
      mutations.push(["string for array", "x"], ["empty array", []]);
      if (schema.maxItems !== undefined && schema.maxItems < 500)
        mutations.push(["maxItems + 1", Array.from({ length: schema.maxItems + 1 }, () => current[0])]);
    } else if (type === "object" && schema.propertyNames) {
      // A map (app metadata): any key its propertyNames allow is valid, so the attacks are a
      // key it refuses, a key too many, and values it cannot take (the schema decides which).
      const current = at.reduce<unknown>((node, key) => (node as Json)[key as string], baseBody) as Json;
      mutations.push(["key the map refuses", { ...current, "surprise key!": "x" }]);
      mutations.push(["100 KB key", { ...current, [HUGE]: "x" }]);
      if (schema.maxProperties !== undefined)
        mutations.push([
          "maxProperties + 1",
          Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, "v"])),
        ]);
      mutations.push(["value too long", { ...current, long: "v".repeat(10_000) }]);
      mutations.push(["value of another type", { ...current, typed: 12 }]);
      mutations.push(["control characters", { ...current, nasty: NASTY }]);
      if (at.length) mutations.push(["array for object", ["x"]]);
    } else if (type === "object") {
      const current = at.reduce<unknown>((node, key) => (node as Json)[key as string], baseBody) as Json;
      mutations.push(["unknown field", { ...current, surpriseField: "surprise" }]);
      if (at.length) mutations.push(["array for object", ["x"]]);
    }
    for (const [label, value] of mutations) {
      if (form && typeof value !== "string") continue;
      // A fresh sample each time, so unique fields (e-mail, SKU, slug) do not collide with the last.
      const body = setAt(k.sample(bodySchema), at, value);
      // Over the operation's body limit: its own where it documents one (an image upload's).
      const huge = (value === HUGE || label === "100 KB key") && HUGE.length > bodyLimitOf(o);
      // Whatever the schema says: JSON bodies refuse unknown fields and text PostgreSQL cannot store.
      const refused =
        (!form && (label === "unknown field" || value === NASTY || label === "control characters")) ||
        (typeof value === "string" && UNSTORABLE_DATES.includes(value));
      const bad = huge || refused || !baseValid || !k.valid(ajv, bodySchema, body);
      await k.send(failures, o, {
        label: `${field}: ${label}`,
        method,
        url,
        headers: { ...(await t.auth()), "content-type": t.contentType! },
        payload: t.encode(body),
        bad,
        codes: huge ? ["PAYLOAD_TOO_LARGE"] : baseValid ? ["VALIDATION_FAILED"] : undefined,
      });
    }
  }
};

/** Bodies as a whole: malformed, the wrong shape, the wrong type, too big. */
const wholeBodyAttacks: Family = async (k, t, failures) => {
  const { o, method, url, jsonBody, formBody, bodySchema, baseBody, basePayload, contentType } = t;
  if (!t.stateChanging) return;
  const whole: Array<[string, string, string | undefined, boolean, string[] | undefined]> = [];
  const wrongType = formBody && !jsonBody ? "application/json" : "text/plain";
  whole.push(["wrong content type", basePayload ?? "{}", wrongType, true, ["UNSUPPORTED_MEDIA_TYPE"]]);
  whole.push([
    "form-encoded",
    "a=b&c=d",
    "application/x-www-form-urlencoded",
    Boolean(jsonBody),
    ["UNSUPPORTED_MEDIA_TYPE"],
  ]);
  whole.push([
    "no content type",
    basePayload ?? "{}",
    undefined,
    Boolean(jsonBody),
    ["UNSUPPORTED_MEDIA_TYPE"],
  ]);
  whole.push([
    "unknown content type",
    basePayload ?? "{}",
    "application/jsonx",
    true,
    ["UNSUPPORTED_MEDIA_TYPE"],
  ]);
  whole.push([
    "over the body limit",
    t.encode({ ...(typeof baseBody === "object" ? baseBody : {}), pad: "p".repeat(bodyLimitOf(o) * 2) }),
    contentType ?? "application/json",
    true,
    ["PAYLOAD_TOO_LARGE"],
  ]);
  if (!formBody || jsonBody) {
    for (const [label, text] of [
      ["truncated JSON", '{"a": '],
      ["trailing comma", '{"a": 1,}'],
      ["single quotes", "{'a': 1}"],
      ["NUL byte", "\u0000"],
      ["prototype pollution", '{"__proto__": {"polluted": true}}'],
      ["constructor pollution", '{"constructor": {"prototype": {"polluted": true}}}'],
    ] as const)
      whole.push([label, text, "application/json", true, ["BAD_REQUEST", "VALIDATION_FAILED"]]);
    // Well-formed JSON of the wrong shape; a route without a body ignores it (and would act).
    if (bodySchema)
      for (const [label, value] of [
        ["JSON array", [1, 2]],
        ["JSON string", "x"],
        ["JSON number", 12],
        ["JSON null", null],
        ["JSON true", true],
      ] as const) {
        const bad = !k.valid(k.bodyAjv, bodySchema, value);
        whole.push([
          label,
          JSON.stringify(value),
          "application/json",
          bad,
          ["VALIDATION_FAILED", "BAD_REQUEST"],
        ]);
      }
    if (bodySchema && mainType(bodySchema) !== "array")
      whole.push([
        "deep nesting",
        `${"[".repeat(5000)}${"]".repeat(5000)}`,
        "application/json",
        true,
        ["VALIDATION_FAILED", "BAD_REQUEST"],
      ]);
    if (bodySchema && o.op.requestBody?.required)
      whole.push([
        "empty body",
        "",
        "application/json",
        !k.valid(k.bodyAjv, bodySchema, undefined),
        ["VALIDATION_FAILED", "BAD_REQUEST"],
      ]);
  }
  for (const [label, payload, type, bad, codes] of whole) {
    await k.send(failures, o, {
      label,
      method,
      url,
      headers: { ...(await t.auth()), ...(type ? { "content-type": type } : {}) },
      payload,
      bad,
      codes,
    });
  }
};

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (!path.length) return value;
  const copy = structuredClone(root) as Json;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step as string];
  node[path.at(-1) as string] = value;
  return copy;
}

/** Fails with every distinct failure (the first 200), the request count and the seed to replay with. */
function assertNone(failures: string[], requests: number) {
  if (!failures.length) return;
  const unique = [...new Set(failures)];
  assert.fail(
    `${unique.length} failures over ${requests} requests (replay with TEST_SEED=${SEED}):\n  ${unique.slice(0, 200).join("\n  ")}` +
      (unique.length > 200 ? `\n  … and ${unique.length - 200} more` : ""),
  );
}

/** What a sweep's tests reach: the context, the document, the prepared targets and the runner. */
export interface Sweep {
  ctx: () => TestContext;
  doc: () => Json;
  targets: () => Target[];
  baselineFailures: string[];
  attackEvery: (t: TestRun, family: Family, only?: (target: Target) => boolean) => Promise<void>;
}

/**
 * One robustness suite: its own platform and database, the document's operations prepared as
 * targets (two tenants' worlds, the real ids read back), and `tests` run against them. The sweeps
 * are split over several files so that each is a process of its own: run in one file, the largest
 * (the body fields of the dashboard and the Admin API) kept it running long after every other file
 * had finished (test/robustness*.test.ts).
 */
export function robustnessSuite(title: string, tests: (s: Sweep) => void) {
  describe(title, () => {
    let ctx: TestContext;
    let doc: Json;
    let arsenal: Arsenal;
    let targets: Target[];
    const baselineFailures: string[] = [];
    let started = 0;
    before(async () => {
      ctx = await createTestContext({
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
        IMAGE_UPLOAD_MAX_BYTES: String(IMAGE_UPLOAD_MAX_BYTES),
        RATE_LIMIT_PER_MINUTE: "1000000",
        CREDENTIAL_MAX_FAILURES: "1000000",
        LOGIN_MAX_FAILURES: "1000000",
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        // A revocation answers once no instance may still trust the token it ended (the access
        // cache's lifetime): half a second for each of the hundreds of revokes the sweep sends.
        // Reading every token every time makes them answer at once; no answer here depends on it.
        ACCESS_TOKEN_CACHE_MS: "0",
      });
      started = Date.now();
      doc = await fetchDocument(ctx.app);
      // The outbox is the operator's, not a store's: both worlds hold its key.
      const outboxKey = new URL(ctx.platform.mail.outboxUrl("http://x")!).hash.slice("#key=".length);
      const worlds = {
        own: await World.create(ctx.app, "own", outboxKey),
        other: await World.create(ctx.app, "other", outboxKey),
      };
      arsenal = createArsenal(ctx.app, doc, worlds);
      targets = await arsenal.prepare(baselineFailures);
    });
    afterEach((t) => {
      // Node has had TestContext.passed since 21.7; @types/node 24.19 does not declare it yet.
      if ((t as { passed?: boolean }).passed === false) t.diagnostic(`replay with TEST_SEED=${SEED}`);
    });
    after(async () => {
      if (arsenal) {
        const { tally, notes, operations } = arsenal;
        const statuses = [...tally.byStatus.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}: ${n}`);
        console.log(
          `robustness (TEST_SEED=${SEED}): ${operations.length} operations, ${tally.requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s (${statuses.join(", ")})` +
            (notes.length ? `\n  notes:\n    ${notes.join("\n    ")}` : ""),
        );
      }
      await ctx?.close();
    });

    /** Runs `family` against every operation in order (reads first, deletes last) and judges the answers. */
    async function attackEvery(t: TestRun, family: Family, only: (target: Target) => boolean = () => true) {
      const failures: string[] = [];
      const before = arsenal.tally.requests;
      for (const target of targets.filter(only)) await family(arsenal, target, failures);
      const requests = arsenal.tally.requests - before;
      t.diagnostic(`${requests} requests`);
      assert.ok(requests > 0, "no attack sent");
      assertNone(failures, requests);
    }

    tests({
      ctx: () => ctx,
      doc: () => doc,
      targets: () => targets,
      baselineFailures,
      attackEvery,
    });
  });
}

/** The credential, path, parameter and whole-body sweeps, with the HTTP parser's and the URLs'. */
export function generalSweeps(s: Sweep) {
  const { attackEvery, baselineFailures } = s;
  it("knows how to make credentials for every security scheme of the document's 40 and more operations", () => {
    const failures: string[] = [];
    assert.ok(s.targets().length >= 40, `only ${s.targets().length} operations in the document`);
    for (const { o } of s.targets())
      for (const requirement of (o.op.security ?? s.doc().security ?? []) as Json[])
        for (const scheme of Object.keys(requirement))
          if (!CREDENTIALS[scheme])
            failures.push(
              `unknown security scheme: ${o.name} uses "${scheme}": add a way to make valid credentials for it to CREDENTIALS in test/robustness.ts`,
            );
    assertNone(failures, 0);
  });

  it("answers a valid read of every GET operation with success, matching the document", (t) => {
    const reads = s.targets().filter((target) => target.method === "GET").length;
    t.diagnostic(`${reads} requests (sent while preparing the attacks: their answers are the real ids)`);
    assertNone(baselineFailures, reads);
  });

  it("refuses a missing or forged credential of every scheme with 401 and the envelope", async (t) => {
    await attackEvery(t, credentialAttacks);
  });

  it("refuses malformed, hostile, unknown and another tenant's path ids with a 4xx", async (t) => {
    await attackEvery(t, pathAttacks);
  });

  it("refuses bad query and header parameters with 400, and ignores unknown or repeated ones", async (t) => {
    await attackEvery(t, parameterAttacks);
  });

  // Last: a route without a body acts on the bodies it ignores, so the deletes happen here.
  it("refuses malformed, mistyped and oversized bodies and wrong content types", async (t) => {
    await attackEvery(t, wholeBodyAttacks);
  });

  it("keeps every table through the SQL-looking input", async () => {
    // The tables survived every "DROP TABLE".
    assert.ok(await s.ctx().platform.db.selectFrom("products").select("id").limit(1).execute());
  });

  it("answers requests Node's HTTP parser refuses with the envelope, over a real connection", async () => {
    // app.inject and fetch cannot send these (both check header values): bytes on a socket.
    const base = await s.ctx().app.listen({ port: 0, host: "127.0.0.1" });
    const port = Number(new URL(base).port);
    const get = (lines: string[], target = "/healthz", method = "GET", version = "HTTP/1.1") =>
      `${method} ${target} ${version}\r\n${[...lines, "Connection: close"].join("\r\n")}\r\n\r\n`;
    const login = (lines: string[], body = "{}") =>
      `POST /api/v1/dashboard/auth/login HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n${lines.join("\r\n")}\r\nConnection: close\r\n\r\n${body}`;
    const cases: Array<[string, string]> = [
      ["NUL in a header value", get(["Host: a", "X-Note: a\u0000b"])],
      ["DEL in a header value", get(["Host: a", "X-Note: a\u007fb"])],
      ["control character in a header value", get(["Host: a", "X-Note: a\u0001b"])],
      ["NUL in the Idempotency-Key", get(["Host: a", "Idempotency-Key: k\u0000ey"])],
      ["DEL in a credential", get(["Host: a", "Authorization: Bearer mpat_\u007f"])],
      ["NUL in a cookie", get(["Host: a", "Cookie: mp_session=\u0000"])],
      ["NUL in a header name", get(["Host: a", "X-No\u0000te: b"])],
      ["DEL in a header name", get(["Host: a", "X-No\u007fte: b"])],
      ["space in a header name", get(["Host: a", "X Note: b"])],
      ["bare CR in a header value", get(["Host: a", "X-Note: a\rb"])],
      ["folded header line", get(["Host: a", "X-Note: a", " b"])],
      ["NUL in the Host", get(["Host: a\u0000b"])],
      ["no Host", get([])],
      ["two Hosts", get(["Host: a", "Host: b"])],
      ["headers over the size limit", get(["Host: a", `X-Note: ${"a".repeat(20_000)}`])],
      ["NUL in the path", get(["Host: a"], "/heal\u0000thz")],
      ["space in the path", get(["Host: a"], "/heal thz")],
      ["malformed method", get(["Host: a"], "/healthz", "G@T")],
      ["unknown method", get(["Host: a"], "/healthz", "BREW")],
      ["unknown HTTP version", get(["Host: a"], "/healthz", "GET", "HTTP/1.7")],
      ["Content-Length not a number", login(["Content-Length: 2x"])],
      ["two Content-Lengths", login(["Content-Length: 2", "Content-Length: 3"])],
      [
        "Content-Length with chunked",
        login(["Content-Length: 2", "Transfer-Encoding: chunked"], "2\r\n{}\r\n0\r\n\r\n"),
      ],
      ["unknown Transfer-Encoding", login(["Transfer-Encoding: gzip"])],
      ["malformed chunk size", login(["Transfer-Encoding: chunked"], "zz\r\n{}\r\n0\r\n\r\n")],
    ];
    const failures: string[] = [];
    for (const [label, text] of cases) {
      const res = await rawRequest(port, text);
      let body: Json = {};
      try {
        body = JSON.parse(res.body);
      } catch {
        // reported below
      }
      const envelope =
        res.status === 400 &&
        /^application\/json/.test(res.headers["content-type"] ?? "") &&
        body.success === false &&
        typeof body.message === "string" &&
        body.error?.code === "BAD_REQUEST" &&
        body.error.message === body.message &&
        typeof body.error.requestId === "string" &&
        res.headers["x-request-id"] === body.error.requestId;
      if (!envelope) failures.push(`${label}: ${JSON.stringify(res.raw.slice(0, 300))}`);
      for (const [kind, pattern] of LEAKS)
        if (pattern.test(res.body)) failures.push(`${label}: leaks ${kind}: ${res.body.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
    // A good request on a real connection still passes the Host rule.
    assert.equal((await rawRequest(port, get(["Host: a"]))).status, 200);
  });

  it("answers unknown and malformed URLs with the envelope", async () => {
    const failures: string[] = [];
    for (const url of [
      "/api/v1/nope",
      "/api/v1/dashboard/stores/x/nope",
      "/api/v1/dashboard/%E0%A4%A",
      "/api/v1/apps/api/products/%00",
      `/api/v1/developer/${"z".repeat(5000)}`,
      "/api/v1/dashboard/../../../etc/passwd",
    ]) {
      for (const method of ["GET", "POST", "DELETE"] as const) {
        const res = await s.ctx().app.inject({
          method,
          url,
          headers: { "content-type": "application/json" },
          payload: method === "GET" ? undefined : "{}",
        });
        let body: Json = {};
        try {
          body = res.json() as Json;
        } catch {
          // not JSON: reported below
        }
        if (
          res.statusCode < 400 ||
          res.statusCode >= 500 ||
          body.success !== false ||
          !CODES.has(body.error?.code)
        )
          failures.push(`${method} ${url.slice(0, 80)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
}

/** Each body field of the wrong type, out of range, too long or unstorable, for the operations under `prefixes`. */
export function bodySweeps(
  s: Sweep,
  families: ReadonlyArray<readonly [name: string, prefix: string | null, except?: string]>,
) {
  // A family may be split in two (`except`: what another entry sweeps), so no one test holds
  // thousands of requests against the runner's per-test time-out on a loaded machine.
  for (const [name, prefix, except] of families)
    it(`refuses each body field of the wrong type, out of range, too long or unstorable: ${name}`, async (t) => {
      await s.attackEvery(t, fieldAttacks, (target) =>
        prefix === null
          ? !API_PREFIXES.some((p) => target.o.path.startsWith(p))
          : target.o.path.startsWith(prefix) && !(except && target.o.path.startsWith(except)),
      );
    });
  it("keeps every table through the SQL-looking input", async () => {
    assert.ok(await s.ctx().platform.db.selectFrom("products").select("id").limit(1).execute());
  });
}

/** The three API families' path prefixes (any other operation is the fourth "family"). */
export const API_PREFIXES = ["/api/v1/dashboard/", "/api/v1/apps/api/", "/api/v1/developer/"] as const;
