import { createHash } from "node:crypto";
import sharp, { type Metadata, type OutputInfo } from "sharp";
import { IMAGE_SIZE_NAMES, IMAGE_SIZES, type ImageSize } from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";

/**
 * Turning an upload into what is stored (issue 32): the bytes are decoded by libvips (sharp) and
 * re-encoded as WebP in each of IMAGE_SIZES. Nothing of the upload but its pixels survives: a
 * script in an SVG, the HTML or ZIP half of a polyglot, EXIF and ICC data are all left behind, so
 * what a browser receives is an image whatever was sent.
 *
 * Three bounds keep one process's memory bounded whatever arrives:
 * - the decoders: only JPEG, PNG, WebP and GIF loaders may run (sharp.block), so SVG (librsvg),
 *   TIFF, PDF, HEIF and the rest are refused before any of their code parses the bytes, whatever
 *   the file name or Content-Type claimed;
 * - the pixels: the header's dimensions are checked against MAX_IMAGE_PIXELS before anything is
 *   decoded, and libvips is told the same limit (limitInputPixels), so a decompression bomb (a
 *   small PNG of 30,000 × 30,000) is refused from its header;
 * - the work: one image is decoded at a time per process (IMAGE_WORK), its largest size first,
 *   and the smaller sizes made from that; libvips keeps no cache.
 */

/** The most pixels an upload may decode to: 25 megapixels (5,000 × 5,000). */
export const MAX_IMAGE_PIXELS = 25_000_000;

/** The formats accepted, as sharp names them, and how the refusal names them. */
const ACCEPTED = new Set(["jpeg", "png", "webp", "gif"]);
const ACCEPTED_WORDS = "JPEG, PNG, WebP or GIF";

let restricted = false;
/** Process-wide, once: only the accepted formats' loaders may run; no cache; one thread per image. */
function restrictDecoders(): void {
  if (restricted) return;
  sharp.block({ operation: ["VipsForeignLoad"] });
  sharp.unblock({
    operation: ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadNsgif"],
  });
  sharp.cache(false);
  sharp.concurrency(1);
  restricted = true;
}

export interface ImageFileOut {
  size: ImageSize;
  width: number;
  height: number;
  content: Buffer;
  /** SHA-256 of the content, base64url: its ETag. */
  etag: string;
}

export interface ProcessedImage {
  /** The largest size's dimensions. */
  width: number;
  height: number;
  files: ImageFileOut[];
  /** Bytes of every size together (what counts against the store's bound). */
  bytes: number;
}

const refused = (field: string, message: string) =>
  new AppError("VALIDATION_FAILED", {
    message: `The image was refused: ${message}.`,
    details: [{ field, message }],
  });

/**
 * A small queue: at most `running` jobs at a time, at most `waiting` more waiting for a turn (each
 * holds its upload in memory); past that, 503 so a burst of uploads cannot pile up bodies.
 */
export function createWorkQueue(limits: { running: number; waiting: number }) {
  let running = 0;
  const queue: Array<() => void> = [];
  return async function run<T>(job: () => Promise<T>): Promise<T> {
    if (running >= limits.running) {
      if (queue.length >= limits.waiting)
        throw new AppError("SERVICE_UNAVAILABLE", {
          message: "Too many images are being processed right now: try again in a few seconds.",
        });
      await new Promise<void>((resolve) => queue.push(resolve));
    } else running++;
    try {
      return await job();
    } finally {
      const next = queue.shift();
      if (next) next();
      else running--;
    }
  };
}

/** One image at a time per process, four more waiting. */
const IMAGE_WORK = createWorkQueue({ running: 1, waiting: 4 });

/**
 * Decodes `input` (checked: an accepted format, by its content; at most MAX_IMAGE_PIXELS) and
 * re-encodes it as WebP in every size. VALIDATION_FAILED naming `field` when it is refused.
 */
export function processImage(input: Uint8Array, field: string): Promise<ProcessedImage> {
  restrictDecoders();
  return IMAGE_WORK(() => process(input, field));
}

async function process(input: Uint8Array, field: string): Promise<ProcessedImage> {
  if (input.byteLength === 0) throw refused(field, "is empty");
  const options = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error", animated: false } as const;
  let metadata: Metadata;
  try {
    // The header only (no pixels are decoded): the pixel bound is checked below, with words.
    metadata = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch {
    // A blocked loader (SVG, TIFF, …) and bytes that are no image at all end here alike.
    throw refused(field, `is not a ${ACCEPTED_WORDS} image`);
  }
  if (!metadata.format || !ACCEPTED.has(metadata.format))
    throw refused(field, `is not a ${ACCEPTED_WORDS} image`);
  const { width = 0, height = 0 } = metadata;
  if (width <= 0 || height <= 0) throw refused(field, "has no size");
  if (width * height > MAX_IMAGE_PIXELS)
    throw refused(
      field,
      `is ${((width * height) / 1e6).toFixed(1)} megapixels (${width} × ${height}): at most ${MAX_IMAGE_PIXELS / 1e6} megapixels`,
    );
  // Decoded once, to the largest size (EXIF orientation applied); the smaller sizes come from it.
  const largest = IMAGE_SIZES.page.px;
  let base: { data: Buffer; info: OutputInfo };
  try {
    base = await sharp(input, options)
      .rotate()
      .resize({ width: largest, height: largest, fit: "inside", withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw refused(field, "could not be decoded (damaged or truncated)");
  }
  const raw = { raw: { width: base.info.width, height: base.info.height, channels: 4 as const } };
  const files: ImageFileOut[] = [];
  for (const size of IMAGE_SIZE_NAMES) {
    const px = IMAGE_SIZES[size].px;
    const { data, info } = await sharp(base.data, raw)
      .resize({ width: px, height: px, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 82, alphaQuality: 90, effort: 4 })
      .toBuffer({ resolveWithObject: true });
    files.push({
      size,
      width: info.width,
      height: info.height,
      content: data,
      etag: createHash("sha256").update(data).digest("base64url"),
    });
  }
  return {
    width: base.info.width,
    height: base.info.height,
    files,
    bytes: files.reduce((sum, f) => sum + f.content.byteLength, 0),
  };
}
