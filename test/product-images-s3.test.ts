import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
// @ts-expect-error s3rver ships no types: a fake S3 server for tests.
import S3rver from "s3rver";
import sharp from "sharp";
import { createTestContext, merchantWithStore, type TestContext, text } from "./harness.ts";

/**
 * Product images kept in an S3-compatible bucket (S3_BUCKET), against a real S3-compatible server
 * on loopback (s3rver, the AWS SDK's real requests): the files go to the bucket and only their
 * rows to the database; the same URLs serve them from the bucket; a deleted image's and a deleted
 * product's objects leave the bucket, and so do the objects of an upload the store's bound refused.
 */
const BUCKET = "product-images";
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

describe("product images in S3", () => {
  let ctx: TestContext;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let directory: string;
  let endpoint: string;
  let s3: S3Client;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "s3rver-"));
    server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: CREDENTIALS });
    ctx = await createTestContext(
      {
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: endpoint,
        S3_FORCE_PATH_STYLE: "true",
        S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        IMAGE_MAX_PER_STORE: "2",
      },
      { frozenClock: true },
    );
  });
  after(async () => {
    await ctx?.close();
    s3?.destroy();
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const keysOf = async (storeId: string) =>
    (
      (await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `stores/${storeId}/` }))).Contents ??
      []
    )
      .map((o) => o.Key!)
      .sort();

  it("stores the files in the bucket, serves them from it, and deletes them with the image or the product", async () => {
    const m = await merchantWithStore(ctx.app);
    const made = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: { title: "Lamp", variants: [{ price: "30.00" }] },
    });
    const id = made.data!.data.id;
    const upload = async (colour: string) =>
      m.client.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
        params: { path: { slug: m.slug, id } },
        body: {
          attachment: (
            await sharp({ create: { width: 900, height: 600, channels: 3, background: colour } })
              .png()
              .toBuffer()
          ).toString("base64"),
        },
      });
    const first = await upload("#345678");
    assert.equal(first.response.status, 201, text(first));
    const image = first.data!.data;
    assert.deepEqual(await keysOf(m.store.id), [
      `stores/${m.store.id}/images/${image.id}/list.webp`,
      `stores/${m.store.id}/images/${image.id}/page.webp`,
      `stores/${m.store.id}/images/${image.id}/phone.webp`,
    ]);
    const rows = await ctx.platform.db
      .selectFrom("product_image_files as f")
      .innerJoin("product_images as i", (j) =>
        j.onRef("i.store_id", "=", "f.store_id").onRef("i.id", "=", "f.image_id"),
      )
      .select(["f.content", "i.storage"])
      .where("f.image_id", "=", image.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.content, r.storage]),
      [
        [null, "s3"],
        [null, "s3"],
        [null, "s3"],
      ],
      "only the rows are in the database",
    );
    const served = await ctx.app.inject({ method: "GET", url: new URL(image.sizes.page.url).pathname });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers["content-type"], "image/webp");
    const meta = await sharp(served.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["webp", 900, 600]);

    // The second fills the store's bound; the third is refused and leaves nothing in the bucket.
    const second = await upload("#876543");
    assert.equal(second.response.status, 201, text(second));
    const third = await upload("#112233");
    assert.equal(third.response.status, 409, text(third));
    assert.equal((await keysOf(m.store.id)).length, 6);

    const removed = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
      params: { path: { slug: m.slug, id, imageId: image.id } },
    });
    assert.equal(removed.response.status, 200, text(removed));
    assert.deepEqual(
      (await keysOf(m.store.id)).map((k) => k.split("/")[3]),
      [second.data!.data.id, second.data!.data.id, second.data!.data.id],
    );
    const gone = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id } },
    });
    assert.equal(gone.response.status, 200, text(gone));
    assert.deepEqual(await keysOf(m.store.id), []);
    assert.equal(
      (await ctx.app.inject({ method: "GET", url: new URL(second.data!.data.src).pathname })).statusCode,
      404,
    );
  });
});
