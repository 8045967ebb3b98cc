/**
 * The floor of the HTTP figures: a bare Fastify server in its own process running the same SQL as
 * the service's product reads, through `pg` (FLOOR_DB=pg: DATABASE_URL, DATABASE_SCHEMA) or PGlite
 * on disk (FLOOR_DB=pglite: DATA_DIR, as the embedded service keeps it). No authentication, no
 * rate limit, no schema validation: what the same stack does for the same rows. Answers the same
 * envelope and field names, so the bodies are the same size (the benchmark prints both).
 *
 *   GET /healthz                  {"ok":true}   (also the "bare Fastify hello" floor)
 *   GET /products?limit=50        the first page, newest first
 *   GET /products/:id             one product
 *
 * FLOOR_PREPARED=true sends named (prepared) statements; by default unnamed ones, as the pg driver
 * does unless told otherwise.
 */
import { join } from "node:path";
import Fastify from "fastify";

/** A row as pg or PGlite reads it: a product's or a variant's columns. */
interface Row {
  id: string;
  product_id: string;
  title: string;
  description: string;
  vendor: string;
  product_type: string;
  tags: string[];
  options: unknown;
  option1: string | null;
  option2: string | null;
  option3: string | null;
  barcode: string | null;
  price_minor: number;
  price_max_minor: number;
  compare_at_minor: number | null;
  weight_grams: number | null;
  tracked: boolean;
  available: number;
  position: number;
  sku: string | null;
  stock: number;
  status: string;
  created_at: Date;
  updated_at: Date;
}
type Query = (name: string, text: string, values: unknown[]) => Promise<Row[]>;

// The statements the service's product repository sends today (Kysely's compiled text).
const LIST = 'select * from "products" where "store_id" = $1 order by "created_at" desc, "id" desc limit $2';
const GET = 'select * from "products" where "store_id" = $1 and "id" = $2';
// And each product's variants, in order (issue 30).
const VARIANTS =
  'select * from "product_variants" where "store_id" = $1 and "product_id" = any($2) order by "product_id", "position"';

async function connect(): Promise<{ query: Query; close(): Promise<void> }> {
  if (process.env.FLOOR_DB === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite");
    const { DEFAULT_EMBEDDED_SHARED_BUFFERS_MB } = await import("../../src/db/client.ts");
    // As the service opens it (shared_buffers) and keeps it (ANALYZE at start: PGlite has no
    // autovacuum, and a planner without statistics would slow the floor, not the service).
    const db = await PGlite.create(join(process.env.DATA_DIR!, "pgdata"), {
      startParams: [
        ...PGlite.defaultStartParams,
        "-c",
        `shared_buffers=${DEFAULT_EMBEDDED_SHARED_BUFFERS_MB}MB`,
      ],
    });
    await db.exec("ANALYZE");
    return {
      query: async (_name, text, values) => (await db.query<Row>(text, values)).rows,
      close: () => db.close(),
    };
  }
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    options: `-c search_path=${process.env.DATABASE_SCHEMA ?? "public"}`,
  });
  const prepared = process.env.FLOOR_PREPARED === "true";
  return {
    query: async (name, text, values) =>
      (await pool.query<Row>(prepared ? { name, text, values } : { text, values })).rows,
    close: () => pool.end(),
  };
}

const db = await connect();
const [store] = (await db.query("store", "select id, currency from stores where slug = $1", [
  process.env.STORE_SLUG,
])) as unknown as Array<{ id: string; currency: string }>;
if (!store) throw new Error(`no store ${process.env.STORE_SLUG}`);

const money = (minor: number) => (Number(minor) / 100).toFixed(2);
const variantView = (v: Row) => {
  const values = [v.option1, v.option2, v.option3].filter((x) => x !== null);
  return {
    id: v.id,
    productId: v.product_id,
    title: values.length ? values.join(" / ") : "Default",
    optionValues: values,
    sku: v.sku,
    barcode: v.barcode,
    price: money(v.price_minor),
    compareAtPrice: v.compare_at_minor === null ? null : money(v.compare_at_minor),
    weightGrams: v.weight_grams,
    tracked: v.tracked,
    available: v.tracked ? v.available : 0,
    position: v.position,
    createdAt: v.created_at.toISOString(),
    updatedAt: v.updated_at.toISOString(),
  };
};
const view = (p: Row, variants: Row[]) => ({
  id: p.id,
  title: p.title,
  description: p.description,
  vendor: p.vendor,
  productType: p.product_type,
  tags: p.tags,
  status: p.status,
  options: p.options,
  variants: variants.map(variantView),
  priceRange: { min: money(p.price_minor), max: money(p.price_max_minor) },
  currency: store.currency,
  totalAvailable: p.stock,
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
});
const variantsOf = async (ids: string[]) => {
  const byProduct = new Map<string, Row[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byProduct;
  for (const v of await db.query("floor_variants", VARIANTS, [store.id, ids]))
    byProduct.get(v.product_id)?.push(v);
  return byProduct;
};

const app = Fastify({ logger: false });
app.get("/healthz", async () => ({ ok: true }));
app.get<{ Querystring: { limit?: string } }>("/products", async (request) => {
  const limit = Math.min(250, Math.max(1, Number(request.query.limit ?? 50)));
  const rows = await db.query("floor_list", LIST, [store.id, limit + 1]);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit && last
      ? Buffer.from(JSON.stringify(["c", last.created_at.getTime(), last.id])).toString("base64url")
      : null;
  const variants = await variantsOf(items.map((p) => p.id));
  return {
    success: true,
    data: items.map((p) => view(p, variants.get(p.id) ?? [])),
    meta: { nextCursor, limit },
  };
});
app.get<{ Params: { id: string } }>("/products/:id", async (request, reply) => {
  const [row] = await db.query("floor_get", GET, [store.id, request.params.id]);
  if (!row) return reply.status(404).send({ success: false });
  return { success: true, data: view(row, (await variantsOf([row.id])).get(row.id) ?? []) };
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
const stop = async () => {
  await app.close();
  await db.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
