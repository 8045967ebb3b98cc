import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { installedApp } from "./apps-harness.ts";
import {
  type Api,
  createTestContext,
  merchantWithStore,
  outboxOf,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { startReceiver } from "./receiver.ts";

/**
 * Product images (issue 32, part 1) through the API: uploads (base64) and URLs (fetched through
 * the webhooks' SSRF guard), re-encoded to WebP in three sizes, served with a year's cache and an
 * ETag, in order with alt text and a variant, in every product answer and product.updated, bounded
 * per store against a burst, gone with their product. And hostile files: an SVG with a script, a
 * polyglot, a decompression bomb, a 50-megapixel photo, a file whose name lies: each refused or
 * made harmless, with the process's memory measured around them. Runs on PGlite, and on PostgreSQL
 * with TEST_DATABASE_URL.
 */
type Checker = Awaited<ReturnType<typeof openApiChecker>>;

async function png(width: number, height: number, colour = "#2a6f97") {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}
const b64 = (bytes: Buffer) => bytes.toString("base64");

/**
 * A PNG header claiming `width` × `height` with a tiny, highly compressed body: what a
 * decompression bomb looks like (the pixels would need gigabytes; the file is a few kB).
 */
function bombPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  // 64 rows of zeros compressed: the rest of the image is "missing" (a real bomb has it all, as
  // zeros, in a few MB); the header alone is what must stop it.
  const rows = deflateSync(Buffer.alloc((width + 1) * 64), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", rows),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const rssMiB = () => Math.round(process.memoryUsage().rss / 1_048_576);

describe("product images", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext(
      // The URL uploads below come from a receiver on loopback (as webhooks in development);
      // the guard's refusals of private addresses are checked in their own context below.
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", DATABASE_CONNECT_TIMEOUT_MS: "60000" },
      { frozenClock: true },
    );
    spec = await openApiChecker(ctx.app);
  });
  after(async () => ctx?.close());

  async function shop() {
    const m = await merchantWithStore(ctx.app);
    const client = spec.watch(m.client);
    return { ...m, client, path: { slug: m.slug } };
  }

  async function product(client: Api, slug: string, title = "Harbor shirt") {
    const res = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug } },
      body: {
        title,
        options: [{ name: "Colour", values: ["Sand", "Navy"] }],
        variants: [
          { optionValues: ["Sand"], price: "40.00" },
          { optionValues: ["Navy"], price: "40.00" },
        ],
      },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  }

  /** GET of an image URL (absolute, under PUBLIC_BASE_URL) through the app. */
  async function getImage(url: string, headers: Record<string, string> = {}) {
    const path = new URL(url).pathname;
    return ctx.app.inject({ method: "GET", url: path, headers });
  }

  async function upload(client: Api, slug: string, id: string, body: Record<string, unknown>) {
    return client.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
      params: { path: { slug, id } },
      body: body as never,
    });
  }

  it("uploads an image, re-encodes it in three WebP sizes and serves them cached with an ETag", async () => {
    const m = await shop();
    const p = await product(m.client, m.slug);
    const res = await upload(m.client, m.slug, p.id, {
      attachment: b64(await png(2400, 1800)),
      alt: "Sand shirt, front",
    });
    assert.equal(res.response.status, 201, text(res));
    const image = res.data!.data;
    assert.equal(image.alt, "Sand shirt, front");
    assert.equal(image.position, 0);
    assert.deepEqual([image.width, image.height], [1200, 900]);
    assert.deepEqual(
      [image.sizes.list.width, image.sizes.phone.width, image.sizes.page.width],
      [200, 640, 1200],
    );
    assert.equal(image.src, image.sizes.page.url);

    for (const size of ["list", "phone", "page"] as const) {
      const file = await getImage(image.sizes[size].url);
      assert.equal(file.statusCode, 200, file.body);
      assert.equal(file.headers["content-type"], "image/webp");
      assert.equal(file.headers["cache-control"], "public, max-age=31536000, immutable");
      assert.equal(file.headers["x-content-type-options"], "nosniff");
      const meta = await sharp(file.rawPayload).metadata();
      assert.equal(meta.format, "webp");
      assert.equal(meta.width, image.sizes[size].width);
      const etag = String(file.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
      const again = await getImage(image.sizes[size].url, { "if-none-match": etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);
    }
    // The product carries it, in every family's answer.
    const read = await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: p.id } },
    });
    assert.deepEqual(read.data!.data.images, [image]);
    // A small image is never enlarged.
    const small = await upload(m.client, m.slug, p.id, { attachment: b64(await png(120, 90)) });
    assert.equal(small.response.status, 201, text(small));
    assert.deepEqual([small.data!.data.sizes.page.width, small.data!.data.sizes.list.width], [120, 120]);
  });

  it("orders images, describes them, ties one to a variant, deletes one and emits product.updated", async () => {
    const m = await shop();
    const p = await product(m.client, m.slug);
    const ids: string[] = [];
    for (const colour of ["#aa3300", "#003366", "#228833"]) {
      ctx.clock.advance(1000);
      const res = await upload(m.client, m.slug, p.id, { attachment: b64(await png(300, 300, colour)) });
      assert.equal(res.response.status, 201, text(res));
      ids.push(res.data!.data.id);
    }
    const at = (path: { slug: string; id: string; imageId: string }, body: Record<string, unknown>) =>
      m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
        params: { path },
        body: body as never,
      });
    const moved = await at(
      { slug: m.slug, id: p.id, imageId: ids[2]! },
      {
        position: 0,
        alt: "Green, folded",
        variantId: p.variants[1]!.id,
      },
    );
    assert.equal(moved.response.status, 200, text(moved));
    assert.equal(moved.data!.data.variantId, p.variants[1]!.id);
    const order = async () =>
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id: p.id } },
        })
      ).data!.data.images.map((i) => [i.id, i.position]);
    assert.deepEqual(await order(), [
      [ids[2], 0],
      [ids[0], 1],
      [ids[1], 2],
    ]);
    // A variant of another product is refused, and so is another product's image.
    const other = await product(m.client, m.slug, "Other");
    const wrong = await at(
      { slug: m.slug, id: p.id, imageId: ids[0]! },
      { variantId: other.variants[0]!.id },
    );
    assert.equal(wrong.response.status, 400);
    assert.equal((wrong.error as { error: { code: string } }).error.code, "VALIDATION_FAILED");
    const elsewhere = await at({ slug: m.slug, id: other.id, imageId: ids[0]! }, { alt: "x" });
    assert.equal(elsewhere.response.status, 404);
    // Another store cannot see or touch it.
    const stranger = await shop();
    const theirs = await stranger.client.PATCH(
      "/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}",
      {
        params: { path: { slug: stranger.slug, id: p.id, imageId: ids[0]! } },
        body: { alt: "mine" },
      },
    );
    assert.equal(theirs.response.status, 404);

    const removed = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
      params: { path: { slug: m.slug, id: p.id, imageId: ids[0]! } },
    });
    assert.equal(removed.response.status, 200, text(removed));
    assert.equal((await getImage(removed.data!.data.src)).statusCode, 404);
    assert.deepEqual(await order(), [
      [ids[2], 0],
      [ids[1], 1],
    ]);
    // Every change was announced with the product as it then was, images included.
    const events = (await outboxOf(ctx.platform, "product.updated", m.store.id)).filter(
      (e) => e.resource_id === p.id,
    );
    const last = events.at(-1)!.payload;
    assert.deepEqual(
      last.images.map((i) => i.id),
      [ids[2], ids[1]],
    );
    assert.equal(last.images[0]!.alt, "Green, folded");
  });

  it("takes an image from an https URL through an app (write_products), whatever its name says", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products"]);
    const api = spec.watch(app.api);
    const created = await api.POST("/api/v1/apps/api/products", {
      body: { title: "Mug", variants: [{ price: "12.00" }] },
    });
    assert.equal(created.response.status, 201, text(created));
    const id = created.data!.data.id;
    const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#c0ffee" } })
      .jpeg()
      .toBuffer();
    const receiver = await startReceiver((req, res) => {
      if (req.path === "/moved.png") {
        res.writeHead(302, { location: "/photo.png" });
        res.end();
      } else if (req.path === "/photo.png") {
        // A JPEG named and typed as a PNG: its content decides.
        res.writeHead(200, { "content-type": "image/png" });
        res.end(jpeg);
      } else if (req.path === "/page.jpg") {
        res.writeHead(200, { "content-type": "image/jpeg" });
        res.end("<html><script>alert(1)</script></html>");
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    try {
      const res = await api.POST("/api/v1/apps/api/products/{id}/images", {
        params: { path: { id } },
        body: { src: `${receiver.localhostUrl}/moved.png`, alt: "Mug" },
      });
      assert.equal(res.response.status, 201, text(res));
      assert.deepEqual([res.data!.data.width, res.data!.data.height], [800, 600]);
      const file = await getImage(res.data!.data.sizes.phone.url);
      assert.equal((await sharp(file.rawPayload).metadata()).format, "webp");
      for (const [path, message] of [
        ["/page.jpg", /is not a JPEG, PNG, WebP or GIF image/],
        ["/missing.png", /answered 404/],
      ] as const) {
        const refused = await api.POST("/api/v1/apps/api/products/{id}/images", {
          params: { path: { id } },
          body: { src: `${receiver.localhostUrl}${path}` },
        });
        assert.equal(refused.response.status, 400, text(refused));
        assert.match(text(refused), message);
      }
      // The Admin API reads it, and its bulk export carries its URLs.
      const listed = await api.GET("/api/v1/apps/api/products/{id}", { params: { path: { id } } });
      assert.equal(listed.data!.data.images.length, 1);
      const exported = await ctx.app.inject({
        method: "GET",
        url: "/api/v1/apps/api/export/products",
        headers: { authorization: `Bearer ${app.tokens.accessToken}` },
      });
      assert.equal(exported.statusCode, 200, exported.body);
      const line = exported.body
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: string; images?: Array<{ src: string }> })
        .find((l) => l.id === id);
      assert.equal(line?.images?.[0]?.src, res.data!.data.src);
    } finally {
      await receiver.close();
    }
  });

  it("refuses hostile files or makes them harmless, with the process's memory bounded", async () => {
    const m = await shop();
    const p = await product(m.client, m.slug);
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="alert(1)"><script>alert(document.cookie)</script><rect width="100" height="100"/></svg>',
    );
    // A PNG that is also an HTML page: its pixels are kept, its second meaning is not.
    const polyglot = Buffer.concat([
      await png(64, 64),
      Buffer.from("<html><body><script>alert(document.cookie)</script></body></html>"),
    ]);
    // 50 megapixels (8,660 × 5,774): decoded, 150 MB of pixels.
    const photo50 = await sharp({ create: { width: 8660, height: 5774, channels: 3, background: "#888" } })
      .jpeg({ quality: 50 })
      .toBuffer();
    const bomb = bombPng(60_000, 60_000); // 3.6 gigapixels in a few kB
    const small = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#345" } })
      .jpeg()
      .toBuffer();
    const before = rssMiB();
    const refusals: Array<[string, Buffer, RegExp]> = [
      ["an SVG with a script", svg, /is not a JPEG, PNG, WebP or GIF image/],
      ["a decompression bomb", bomb, /megapixels/],
      ["a 50-megapixel photo", photo50, /50\.0 megapixels \(8660 × 5774\): at most 25 megapixels/],
      ["HTML named as an image", Buffer.from("<!doctype html><script>alert(1)</script>"), /is not a JPEG/],
      ["a truncated JPEG", small.subarray(0, Math.floor(small.length / 2)), /could not be decoded/],
    ];
    for (const [what, bytes, message] of refusals) {
      const res = await upload(m.client, m.slug, p.id, { attachment: b64(bytes) });
      assert.equal(res.response.status, 400, `${what}: ${text(res)}`);
      assert.equal((res.error as { error: { code: string } }).error.code, "VALIDATION_FAILED", what);
      assert.match(text(res), message, what);
    }
    const harmless = await upload(m.client, m.slug, p.id, { attachment: b64(polyglot) });
    assert.equal(harmless.response.status, 201, text(harmless));
    for (const size of ["list", "phone", "page"] as const) {
      const file = await getImage(harmless.data!.data.sizes[size].url);
      assert.equal(file.headers["content-type"], "image/webp");
      assert.equal(file.rawPayload.subarray(0, 4).toString("latin1"), "RIFF");
      assert.ok(!file.rawPayload.includes("<script"), "nothing of the HTML half is served");
    }
    const afterRss = rssMiB();
    console.log(
      `RSS around the hostile files: ${before} MiB before, ${afterRss} MiB after (+${afterRss - before} MiB)`,
    );
    // Decoding the 50-megapixel photo or the bomb would take 150 MB and 3.6 GB.
    assert.ok(afterRss - before < 150, `RSS grew ${afterRss - before} MiB`);
    // Nothing refused was stored.
    assert.equal((await ctx.platform.productImages.usage(m.store.id)).images, 1);
  });

  it("holds the store's bounds against a burst, and gives them back when the product goes", async () => {
    const bounded = await createTestContext({ IMAGE_MAX_PER_STORE: "3" }, { frozenClock: true });
    try {
      const m = await merchantWithStore(bounded.app);
      const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: { title: "Lamp", variants: [{ price: "30.00" }] },
      });
      const id = created.data!.data.id;
      const bytes = b64(await png(400, 300));
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          m.client.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
            params: { path: { slug: m.slug, id } },
            body: { attachment: bytes },
          }),
        ),
      );
      const statuses = answers.map((a) => a.response.status).sort();
      assert.deepEqual(statuses, [201, 201, 201, 409, 409], answers.map(text).join("\n"));
      const usage = await bounded.platform.productImages.usage(m.store.id);
      assert.equal(usage.images, 3);
      assert.ok(usage.bytes > 0);
      const removed = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: m.slug, id } },
      });
      assert.equal(removed.response.status, 200, text(removed));
      assert.equal(removed.data!.data.images.length, 3);
      assert.deepEqual(await bounded.platform.productImages.usage(m.store.id), { images: 0, bytes: 0 });
      const files = await bounded.platform.db
        .selectFrom("product_image_files")
        .select("image_id")
        .where("store_id", "=", m.store.id)
        .execute();
      assert.equal(files.length, 0);
      assert.equal((await getImageOf(bounded, removed.data!.data.images[0]!.src)).statusCode, 404);
    } finally {
      await bounded.close();
    }
  });

  it("fetches URLs only from public addresses, over https, within the size bound", async () => {
    const guarded = await createTestContext({ IMAGE_UPLOAD_MAX_BYTES: "65536" }, { frozenClock: true });
    try {
      const m = await merchantWithStore(guarded.app);
      const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: { title: "Lamp", variants: [{ price: "30.00" }] },
      });
      const id = created.data!.data.id;
      const attempt = (body: Record<string, unknown>) =>
        m.client.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
          params: { path: { slug: m.slug, id } },
          body: body as never,
        });
      for (const [src, message] of [
        ["http://example.com/a.png", /must use https/],
        ["https://127.0.0.1/a.png", /loopback/],
        ["https://169.254.169.254/latest/meta-data", /link-local/],
        ["https://[::ffff:10.0.0.1]/a.png", /private/],
        ["https://user:pw@example.com/a.png", /credentials/],
        ["file:///etc/passwd", /must use https/],
      ] as const) {
        const res = await attempt({ src });
        assert.equal(res.response.status, 400, `${src}: ${text(res)}`);
        assert.match(text(res), message, src);
      }
      const both = await attempt({ src: "https://example.com/a.png", attachment: b64(await png(10, 10)) });
      assert.equal(both.response.status, 400);
      const neither = await attempt({ alt: "nothing" });
      assert.equal(neither.response.status, 400);
      const notBase64 = await attempt({ attachment: "%%%not base64%%%" });
      assert.equal(notBase64.response.status, 400);
      const tooLarge = await attempt({ attachment: b64(Buffer.alloc(70_000, 1)) });
      assert.equal(tooLarge.response.status, 413, text(tooLarge));
      assert.equal((await guarded.platform.productImages.usage(m.store.id)).images, 0);
    } finally {
      await guarded.close();
    }
  });
});

async function getImageOf(ctx: TestContext, url: string) {
  return ctx.app.inject({ method: "GET", url: new URL(url).pathname });
}
