import type { Static } from "typebox";
import {
  IMAGE_SIZE_NAMES,
  type ImageSize,
  MAX_IMAGES_PER_PRODUCT,
  type ProductImageResource,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { ProductImageFile, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { isoString } from "../../lib/iso-string.ts";
import type { ProductRepo } from "../products/products-repo.ts";
import type { ImageFetcher } from "./image-fetch.ts";
import { processImage } from "./image-files.ts";
import type { ImageObjectStore } from "./image-storage.ts";
import type { ImageWithFiles, ProductImageRepo } from "./product-images-repo.ts";
import type { CreateImageInput, UpdateImageInput } from "./product-images-schemas.ts";

export type ProductImageView = Static<typeof ProductImageResource>;

/** Where an image's size is served (public: the image itself is what a storefront shows). */
export const imagePath = (storeId: string, imageId: string, size: ImageSize) =>
  `/api/v1/images/${storeId}/${imageId}/${size}.webp`;

/** An image as every answer shows it: its sizes' absolute URLs under PUBLIC_BASE_URL. */
export function toImageResource(image: ImageWithFiles, baseUrl: string): ProductImageView {
  const sizes = {} as ProductImageView["sizes"];
  for (const size of IMAGE_SIZE_NAMES) {
    const file = image.files.find((f) => f.size === size);
    sizes[size] = {
      url: `${baseUrl}${imagePath(image.store_id, image.id, size)}`,
      width: file?.width ?? image.width,
      height: file?.height ?? image.height,
    };
  }
  return {
    id: image.id,
    productId: image.product_id,
    variantId: image.variant_id,
    position: image.position,
    alt: image.alt,
    width: image.width,
    height: image.height,
    src: sizes.page.url,
    sizes,
    createdAt: isoString(image.created_at),
    updatedAt: isoString(image.updated_at),
  };
}

/** What the product service reads of images: each product's, as answers show them. */
export interface ImageViews {
  imagesOf(
    storeId: string,
    productIds: readonly string[],
    tx?: Executor,
  ): Promise<Map<string, ProductImageView[]>>;
  /** The ids of a product's images, read before it is deleted (their objects go after). */
  heldBy(storeId: string, productId: string, tx: Executor): Promise<string[]>;
  /** Deletes the objects of images already deleted from the database (S3; nothing otherwise). */
  discard(storeId: string, imageIds: readonly string[]): Promise<void>;
}

export function createImageViews(deps: {
  repo: Pick<ProductImageRepo, "imagesOf" | "idsOf">;
  objects: ImageObjectStore | null;
  baseUrl: string;
  log?: (error: unknown) => void;
}): ImageViews {
  return {
    async imagesOf(storeId, productIds, tx) {
      const rows = await deps.repo.imagesOf(storeId, productIds, tx);
      return new Map(
        [...rows].map(([id, images]) => [id, images.map((i) => toImageResource(i, deps.baseUrl))]),
      );
    },
    async heldBy(storeId, productId, tx) {
      return (await deps.repo.idsOf(storeId, productId, tx))
        .filter((r) => r.storage === "s3")
        .map((r) => r.id);
    },
    async discard(storeId, imageIds) {
      if (!deps.objects || imageIds.length === 0) return;
      // After the commit: a failure here leaves objects no row points at (unreachable by URL), not
      // a product with missing images; it is logged.
      await deps.objects.remove(storeId, imageIds, IMAGE_SIZE_NAMES).catch((error) => deps.log?.(error));
    },
  };
}

/**
 * A product's images (issue 32): added from an upload or a URL, re-encoded (image-files.ts), put
 * in order, described, tied to a variant, removed. Each change is made under the product's row
 * lock, which every product write takes, and emits `product.updated` with the product as it now is
 * (so the images are in the webhook). The store's bounds (count and bytes) are reserved in the
 * same transaction (ProductImageRepo.reserve).
 */
export function createProductImageService(deps: {
  db: Db;
  repo: ProductImageRepo;
  products: Pick<ProductRepo, "findForUpdate" | "find" | "findVariant">;
  /** Emits product.updated for the product (products-service `imagesChanged`), in the transaction. */
  changed: (tx: Executor, store: Store, productId: string) => Promise<void>;
  fetcher: Pick<ImageFetcher, "fetch">;
  objects: ImageObjectStore | null;
  limits: { imagesPerStore: number; bytesPerStore: number; uploadBytes: number };
  baseUrl: string;
  clock: Clock;
}) {
  const { db, repo } = deps;

  async function view(store: Store, productId: string, imageId: string, tx: Executor) {
    const images = (await repo.imagesOf(store.id, [productId], tx)).get(productId) ?? [];
    const image = images.find((i) => i.id === imageId);
    if (!image) throw notFound("Image");
    return toImageResource(image, deps.baseUrl);
  }

  async function checkVariant(
    store: Store,
    productId: string,
    variantId: string | null | undefined,
    tx: Executor,
  ) {
    if (!variantId) return;
    if (!(await deps.products.findVariant(store.id, productId, variantId, tx)))
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: "variantId", message: "is not a variant of this product" }],
      });
  }

  /** The upload's bytes: decoded base64, or fetched from `src`. */
  async function bytesOf(input: CreateImageInput): Promise<{ bytes: Buffer; field: string }> {
    if ((input.attachment === undefined) === (input.src === undefined))
      throw new AppError("VALIDATION_FAILED", {
        message: "Send the image as `attachment` (base64) or as `src` (an https URL), one of the two.",
        details: [
          {
            field: input.attachment === undefined ? "attachment" : "src",
            message: "send exactly one of attachment and src",
          },
        ],
      });
    if (input.src !== undefined) return { bytes: await deps.fetcher.fetch(input.src), field: "src" };
    const text = input.attachment!.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1)
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: "attachment", message: "is not base64" }],
      });
    const bytes = Buffer.from(text, "base64");
    if (bytes.byteLength > deps.limits.uploadBytes)
      throw new AppError("PAYLOAD_TOO_LARGE", {
        message: `An image is at most ${deps.limits.uploadBytes} bytes.`,
      });
    return { bytes, field: "attachment" };
  }

  return {
    async create(store: Store, productId: string, input: CreateImageInput): Promise<ProductImageView> {
      // Cheap refusals before the image is read or decoded.
      if (!(await deps.products.find(store.id, productId))) throw notFound("Product");
      const { bytes, field } = await bytesOf(input);
      const processed = await processImage(bytes, field);
      const id = newId("productImage");
      const now = deps.clock.now();
      const files: ProductImageFile[] = processed.files.map((f) => ({
        store_id: store.id,
        image_id: id,
        size: f.size,
        width: f.width,
        height: f.height,
        bytes: f.content.byteLength,
        etag: f.etag,
        content: deps.objects ? null : f.content,
      }));
      // Objects first, rows after: a URL never points at a missing object. Should the rows not be
      // written (a bound reached), the objects go again.
      if (deps.objects) {
        const objects = deps.objects;
        await Promise.all(processed.files.map((f) => objects.put(store.id, id, f.size, f.content, f.etag)));
      }
      try {
        return await db.transaction().execute(async (tx) => {
          if (!(await deps.products.findForUpdate(store.id, productId, tx))) throw notFound("Product");
          await checkVariant(store, productId, input.variantId, tx);
          const count = await repo.count(store.id, productId, tx);
          if (count >= MAX_IMAGES_PER_PRODUCT)
            throw new AppError("CONFLICT", {
              message: `A product has at most ${MAX_IMAGES_PER_PRODUCT} images: delete one first.`,
            });
          const reserved = await repo.reserve(
            store.id,
            processed.bytes,
            { images: deps.limits.imagesPerStore, bytes: deps.limits.bytesPerStore },
            tx,
          );
          if (!reserved)
            throw new AppError("CONFLICT", {
              message: `The store holds as many images as it may (at most ${deps.limits.imagesPerStore}, ${Math.floor(deps.limits.bytesPerStore / 1_048_576)} MiB in all): delete some first.`,
            });
          await repo.insert(
            {
              store_id: store.id,
              id,
              product_id: productId,
              variant_id: input.variantId ?? null,
              position: count,
              alt: input.alt ?? "",
              width: processed.width,
              height: processed.height,
              bytes: processed.bytes,
              storage: deps.objects ? "s3" : "database",
              created_at: now,
              updated_at: now,
            },
            files,
            tx,
          );
          if (input.position !== undefined && input.position < count) {
            const order = ((await repo.imagesOf(store.id, [productId], tx)).get(productId) ?? [])
              .map((i) => i.id)
              .filter((i) => i !== id);
            order.splice(input.position, 0, id);
            await repo.setOrder(store.id, productId, order, now, tx);
          }
          await deps.changed(tx, store, productId);
          return view(store, productId, id, tx);
        });
      } catch (error) {
        if (deps.objects) await deps.objects.remove(store.id, [id], IMAGE_SIZE_NAMES).catch(() => undefined);
        throw error;
      }
    },

    async update(store: Store, productId: string, imageId: string, input: UpdateImageInput) {
      return db.transaction().execute(async (tx) => {
        if (!(await deps.products.findForUpdate(store.id, productId, tx))) throw notFound("Product");
        const image = await repo.find(store.id, productId, imageId, tx);
        if (!image) throw notFound("Image");
        await checkVariant(store, productId, input.variantId, tx);
        const now = deps.clock.now();
        let changed = false;
        const changes: { alt?: string; variant_id?: string | null; updated_at: Date } = { updated_at: now };
        if (input.alt !== undefined && input.alt !== image.alt) {
          changes.alt = input.alt;
          changed = true;
        }
        if (input.variantId !== undefined && input.variantId !== image.variant_id) {
          changes.variant_id = input.variantId;
          changed = true;
        }
        if (changed) await repo.update(store.id, imageId, changes, tx);
        if (input.position !== undefined) {
          const order = ((await repo.imagesOf(store.id, [productId], tx)).get(productId) ?? []).map(
            (i) => i.id,
          );
          const from = order.indexOf(imageId);
          const to = Math.min(input.position, order.length - 1);
          if (from !== to) {
            order.splice(from, 1);
            order.splice(to, 0, imageId);
            await repo.setOrder(store.id, productId, order, now, tx);
            changed = true;
          }
        }
        if (changed) await deps.changed(tx, store, productId);
        return view(store, productId, imageId, tx);
      });
    },

    async remove(store: Store, productId: string, imageId: string) {
      const gone = await db.transaction().execute(async (tx) => {
        if (!(await deps.products.findForUpdate(store.id, productId, tx))) throw notFound("Product");
        const before = await view(store, productId, imageId, tx);
        const image = await repo.delete(store.id, imageId, tx);
        if (!image) throw notFound("Image");
        // Close the gap it leaves, so positions stay 0..n-1.
        const order = ((await repo.imagesOf(store.id, [productId], tx)).get(productId) ?? []).map(
          (i) => i.id,
        );
        await repo.setOrder(store.id, productId, order, deps.clock.now(), tx);
        await deps.changed(tx, store, productId);
        return { view: before, storage: image.storage };
      });
      if (gone.storage === "s3" && deps.objects)
        await deps.objects.remove(store.id, [imageId], IMAGE_SIZE_NAMES).catch(() => undefined);
      return gone.view;
    },

    /** One size's bytes and ETag for the public URL; null when there is no such image. */
    async file(storeId: string, imageId: string, size: ImageSize) {
      const row = await repo.file(storeId, imageId, size);
      if (!row) return null;
      if (row.storage === "database") return row.content ? { etag: row.etag, content: row.content } : null;
      if (!deps.objects) return null;
      const content = await deps.objects.get(storeId, imageId, size);
      return content ? { etag: row.etag, content } : null;
    },

    etag: (storeId: string, imageId: string, size: ImageSize) => repo.etag(storeId, imageId, size),
    usage: (storeId: string) => repo.usage(storeId),
  };
}
export type ProductImageService = ReturnType<typeof createProductImageService>;
