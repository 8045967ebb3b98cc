import Type, { type Static } from "typebox";
import { IMAGE_ALT_MAX, MAX_IMAGES_PER_PRODUCT } from "../../contracts/index.ts";
import { Body, Id } from "../../lib/http/schemas.ts";

/** The largest upload the schema lets through: IMAGE_UPLOAD_MAX_BYTES' ceiling (50 MiB) in base64. */
export const MAX_ATTACHMENT_CHARS = Math.ceil((50 * 1_048_576) / 3) * 4;

export const ImageParams = { id: Id("product"), imageId: Id("productImage") };

const Alt = Type.String({
  maxLength: IMAGE_ALT_MAX,
  description: "What the image shows, for screen readers and search engines.",
  examples: ["Blue linen shirt, front"],
});
const POSITION_WORDS =
  "Its place among the product's images, from 0 (the main image); the others move along.";
const Position = (description = POSITION_WORDS) =>
  Type.Integer({ minimum: 0, maximum: MAX_IMAGES_PER_PRODUCT - 1, description });
const VariantId = Type.Union([Id("variant"), Type.Null()], {
  description: "A variant of the product it shows; null for the product as a whole.",
});

export const CreateImageBody = Body(
  {
    attachment: Type.Optional(
      Type.String({
        maxLength: MAX_ATTACHMENT_CHARS,
        description:
          "The image's bytes in base64 (JPEG, PNG, WebP or GIF; at most IMAGE_UPLOAD_MAX_BYTES, 20 MiB by default, and 25 megapixels). Send this or `src`.",
      }),
    ),
    src: Type.Optional(
      Type.String({
        maxLength: 2048,
        format: "uri",
        description:
          "An https URL the platform fetches the image from (public addresses only; at most 3 redirects; the same bounds as `attachment`). Send this or `attachment`.",
        examples: ["https://cdn.example.com/shirt-blue.jpg"],
      }),
    ),
    alt: Type.Optional(Alt),
    variantId: Type.Optional(VariantId),
    position: Type.Optional(Position(`${POSITION_WORDS} Default: after the last.`)),
  },
  {
    description:
      "The image is decoded and stored re-encoded (WebP, in three sizes): whatever the file's name or type said, only its pixels are kept.",
  },
);
export type CreateImageInput = Static<typeof CreateImageBody>;

export const UpdateImageBody = Body({
  alt: Type.Optional(Alt),
  variantId: Type.Optional(VariantId),
  position: Type.Optional(Position()),
});
export type UpdateImageInput = Static<typeof UpdateImageBody>;
