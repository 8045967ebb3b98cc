import Type from "typebox";
import {
  EVENT,
  IMAGE_SIZE_NAMES,
  type ImageSize,
  ProductImageResource,
  Scope,
} from "../../contracts/index.ts";
import { notFound } from "../../lib/errors.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses, Id } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { ProductIdParam } from "../products/products-schemas.ts";
import { CreateImageBody, ImageParams, UpdateImageBody } from "./product-images-schemas.ts";
import type { ProductImageService } from "./product-images-service.ts";

/** An image's files never change at their URL (a new image is a new id): cached for a year. */
const IMAGE_HEADERS = {
  "cache-control": "public, max-age=31536000, immutable",
  "content-type": "image/webp",
  "x-content-type-options": "nosniff",
  // Opened on its own, it is an image and nothing else: no script, no plug-in, no form.
  "content-security-policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
  "cross-origin-resource-policy": "cross-origin",
  "content-disposition": "inline",
};

/** The image operations, declared once and mounted in each family (productImageRoutes). */
export function productImageOperations(images: ProductImageService, limits: { uploadBytes: number }) {
  return {
    create: defineOperation({
      method: "POST",
      path: "/products/:id/images",
      params: ProductIdParam,
      summary: "Add an image to a product",
      description: `From an upload (\`attachment\`, base64) or a URL the platform fetches (\`src\`). It is decoded and stored re-encoded as WebP in three sizes, so nothing but its pixels is kept (an SVG, a script, a file that is also something else are refused or left behind); at most 25 megapixels, 50 images per product, and the store's bounds (IMAGE_MAX_PER_STORE, IMAGE_MAX_BYTES_PER_STORE: 409 past them). Emits ${eventName(EVENT.productUpdated)}.`,
      body: CreateImageBody,
      // base64 of the largest upload allowed (IMAGE_UPLOAD_MAX_BYTES), and the JSON around it.
      bodyLimit: Math.ceil(limits.uploadBytes / 3) * 4 + 64 * 1024,
      response: { 201: Envelope(ProductImageResource, "Created") },
      errors: ["NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE", "SERVICE_UNAVAILABLE"],
      run: async ({ caller, params, body }) => ({ data: await images.create(caller.store, params.id, body) }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/products/:id/images/:imageId",
      params: ImageParams,
      summary: "Change a product image",
      description: `Its alt text, its variant, or its place (\`position\`: the others move along). Emits ${eventName(EVENT.productUpdated)} when something changed.`,
      body: UpdateImageBody,
      response: { 200: Envelope(ProductImageResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params, body }) => ({
        data: await images.update(caller.store, params.id, params.imageId, body),
      }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/products/:id/images/:imageId",
      params: ImageParams,
      summary: "Delete a product image",
      description: `Its URLs answer 404 from then on (a cached copy may live on where it was cached). Emits ${eventName(EVENT.productUpdated)}.`,
      response: { 200: Envelope(ProductImageResource, "The deleted image") },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({
        data: await images.remove(caller.store, params.id, params.imageId),
      }),
    }),
  };
}

export function productImageRoutes(
  images: ProductImageService,
  limits: { uploadBytes: number },
): FeatureRoutes {
  const op = productImageOperations(images, limits);
  return {
    tags: {
      Images: "Product images, served publicly at the URLs products carry (`images[].sizes`).",
    },
    public(app: App) {
      app.get(
        "/api/v1/images/:storeId/:imageId/:file",
        {
          schema: {
            operationId: "getProductImageFile",
            security: [],
            tags: ["Images"],
            summary: "A product image's file",
            description:
              "The WebP file of one size (`list.webp`, `phone.webp`, `page.webp`), public like a storefront's images. Cached a year (`immutable`) with an `ETag`; `If-None-Match` answers 304.",
            params: Type.Object(
              {
                storeId: Id("store"),
                imageId: Id("productImage"),
                file: Type.String({
                  enum: IMAGE_SIZE_NAMES.map((s) => `${s}.webp`),
                  description: "The size, as a file name.",
                }),
              },
              { additionalProperties: false },
            ),
            response: {
              200: Type.Unsafe<Buffer>({
                description: "The image",
                content: { "image/webp": { schema: { type: "string", format: "binary" } } },
              }),
              304: Type.Null({ description: "Not modified (`If-None-Match` matched)" }),
              ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
            },
          },
        },
        async (request, reply) => {
          const { storeId, imageId, file } = request.params as {
            storeId: string;
            imageId: string;
            file: string;
          };
          const size = file.replace(/\.webp$/, "") as ImageSize;
          const match = request.headers["if-none-match"];
          if (match) {
            const etag = await images.etag(storeId, imageId, size);
            if (etag && match.split(",").some((t) => t.trim().replace(/^W\//, "") === `"${etag}"`))
              return reply
                .status(304)
                .headers({ etag: `"${etag}"`, "cache-control": IMAGE_HEADERS["cache-control"] })
                .send(null);
          }
          const found = await images.file(storeId, imageId, size);
          if (!found) throw notFound("Image");
          return reply.headers({ ...IMAGE_HEADERS, etag: `"${found.etag}"` }).send(found.content);
        },
      );
    },
    store(app) {
      const tags = ["Dashboard: products"];
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteProductImage",
        scope: Scope.write_products,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: products"];
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.remove, {
        operationId: "adminDeleteProductImage",
        scope: Scope.write_products,
        tags,
      });
    },
    developer(app) {
      const tags = ["Developer API: products"];
      mount(app, DEVELOPER_API, op.create, {
        operationId: "developerCreateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.update, {
        operationId: "developerUpdateProductImage",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.remove, {
        operationId: "developerDeleteProductImage",
        scope: Scope.write_products,
        tags,
      });
    },
  };
}
