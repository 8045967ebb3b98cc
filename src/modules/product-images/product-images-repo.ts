import { sql } from "kysely";
import type { ImageSize } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { ProductImage, ProductImageFile } from "../../db/schema.ts";

/** An image's row with its files' rows (without their bytes), as every answer shows it. */
export type ImageWithFiles = ProductImage & { files: Array<Omit<ProductImageFile, "content">> };

/** product_images, product_image_files and store_image_usage (migration 20261129_0060). */
export function createProductImageRepo(db: Db) {
  return {
    /** Each product's images in order, with their files' sizes. */
    async imagesOf(storeId: string, productIds: readonly string[], tx: Executor = db) {
      const byProduct = new Map<string, ImageWithFiles[]>(productIds.map((id) => [id, []]));
      if (productIds.length === 0) return byProduct;
      const rows = await tx
        .selectFrom("product_images")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("product_id", "in", [...productIds])
        .orderBy("product_id")
        .orderBy("position")
        .execute();
      if (rows.length === 0) return byProduct;
      const files = await tx
        .selectFrom("product_image_files")
        .select(["store_id", "image_id", "size", "width", "height", "bytes", "etag"])
        .where("store_id", "=", storeId)
        .where(
          "image_id",
          "in",
          rows.map((r) => r.id),
        )
        .execute();
      const filesOf = new Map<string, ImageWithFiles["files"]>();
      for (const f of files) {
        const list = filesOf.get(f.image_id) ?? [];
        list.push(f);
        filesOf.set(f.image_id, list);
      }
      for (const r of rows) byProduct.get(r.product_id)?.push({ ...r, files: filesOf.get(r.id) ?? [] });
      return byProduct;
    },

    async find(storeId: string, productId: string, imageId: string, tx: Executor = db) {
      return tx
        .selectFrom("product_images")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("product_id", "=", productId)
        .where("id", "=", imageId)
        .executeTakeFirst();
    },

    /** The ids of a product's images (to delete their objects once the product is gone). */
    async idsOf(storeId: string, productId: string, tx: Executor = db) {
      const rows = await tx
        .selectFrom("product_images")
        .select(["id", "storage"])
        .where("store_id", "=", storeId)
        .where("product_id", "=", productId)
        .execute();
      return rows;
    },

    /**
     * Reserves one image of `bytes` against the store's bounds, in one statement: the row is made
     * if missing, then added to only while both stay within the bounds. Concurrent uploads queue
     * on the row's lock and each sees the others' reservations, so a burst cannot pass the bound.
     * Inside the upload's transaction: a failed insert gives the reservation back with it.
     */
    async reserve(
      storeId: string,
      bytes: number,
      limits: { images: number; bytes: number },
      tx: Executor,
    ): Promise<boolean> {
      await tx
        .insertInto("store_image_usage")
        .values({ store_id: storeId })
        .onConflict((oc) => oc.column("store_id").doNothing())
        .execute();
      const row = await tx
        .updateTable("store_image_usage")
        .set({
          images: sql`images + 1`,
          bytes: sql`bytes + ${bytes}::bigint`,
        })
        .where("store_id", "=", storeId)
        .where(sql<boolean>`images + 1 <= ${limits.images}`)
        .where(sql<boolean>`bytes + ${bytes}::bigint <= ${limits.bytes}::bigint`)
        .returning("images")
        .executeTakeFirst();
      return row !== undefined;
    },

    async usage(storeId: string, tx: Executor = db) {
      const row = await tx
        .selectFrom("store_image_usage")
        .select(["images", "bytes"])
        .where("store_id", "=", storeId)
        .executeTakeFirst();
      return { images: row?.images ?? 0, bytes: Number(row?.bytes ?? 0) };
    },

    async count(storeId: string, productId: string, tx: Executor) {
      const row = await tx
        .selectFrom("product_images")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("store_id", "=", storeId)
        .where("product_id", "=", productId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insert(image: ProductImage, files: ProductImageFile[], tx: Executor) {
      await tx.insertInto("product_images").values(image).execute();
      await tx.insertInto("product_image_files").values(files).execute();
    },

    /** Moves a product's images so that `order` (every id, once) is their order. */
    async setOrder(storeId: string, productId: string, order: readonly string[], now: Date, tx: Executor) {
      if (order.length === 0) return;
      // One statement: positions are not unique, so no intermediate state can collide.
      await sql`
        UPDATE product_images AS i SET position = o.position, updated_at = CASE WHEN i.position = o.position THEN i.updated_at ELSE ${now} END
        FROM (SELECT id, (ord - 1)::int AS position FROM unnest(${sql.val(order)}::text[]) WITH ORDINALITY AS t(id, ord)) AS o
        WHERE i.store_id = ${storeId} AND i.product_id = ${productId} AND i.id = o.id`.execute(tx);
    },

    async update(
      storeId: string,
      imageId: string,
      changes: { alt?: string; variant_id?: string | null; updated_at: Date },
      tx: Executor,
    ) {
      await tx
        .updateTable("product_images")
        .set(changes)
        .where("store_id", "=", storeId)
        .where("id", "=", imageId)
        .execute();
    },

    async delete(storeId: string, imageId: string, tx: Executor) {
      return tx
        .deleteFrom("product_images")
        .where("store_id", "=", storeId)
        .where("id", "=", imageId)
        .returningAll()
        .executeTakeFirst();
    },

    /** One size's file (with its bytes when in the database), for the public image URL. */
    async file(storeId: string, imageId: string, size: ImageSize) {
      return db
        .selectFrom("product_image_files as f")
        .innerJoin("product_images as i", (j) =>
          j.onRef("i.store_id", "=", "f.store_id").onRef("i.id", "=", "f.image_id"),
        )
        .select(["f.etag", "f.bytes", "f.content", "i.storage"])
        .where("f.store_id", "=", storeId)
        .where("f.image_id", "=", imageId)
        .where("f.size", "=", size)
        .executeTakeFirst();
    },

    /** Just the ETag, for a conditional request answered 304 without reading the bytes. */
    async etag(storeId: string, imageId: string, size: ImageSize) {
      const row = await db
        .selectFrom("product_image_files")
        .select("etag")
        .where("store_id", "=", storeId)
        .where("image_id", "=", imageId)
        .where("size", "=", size)
        .executeTakeFirst();
      return row?.etag ?? null;
    },
  };
}
export type ProductImageRepo = ReturnType<typeof createProductImageRepo>;
