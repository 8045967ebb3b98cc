import {
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Config } from "../../config.ts";
import type { ImageSize } from "../../contracts/index.ts";

/**
 * Where an image's files live when they are not in the database: an S3-compatible bucket
 * (S3_BUCKET). The rows (product_image_files) are the same either way; only `content` is null and
 * the bytes are in the bucket under `stores/<store>/images/<image>/<size>.webp`. Every API process
 * reads them through the same URL, whichever store holds them.
 */
export interface ImageObjectStore {
  readonly kind: "s3";
  put(storeId: string, imageId: string, size: ImageSize, content: Buffer, etag: string): Promise<void>;
  get(storeId: string, imageId: string, size: ImageSize): Promise<Buffer | null>;
  /** Deletes every size of these images (missing ones are no error). */
  remove(storeId: string, imageIds: readonly string[], sizes: readonly ImageSize[]): Promise<void>;
}

export const objectKey = (storeId: string, imageId: string, size: ImageSize) =>
  `stores/${storeId}/images/${imageId}/${size}.webp`;

/** The bucket the configuration names, or null: images in the database. */
export function imageObjectStoreFrom(config: Config): ImageObjectStore | null {
  if (!config.S3_BUCKET) return null;
  const client = new S3Client({
    region: config.S3_REGION,
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    // Checksums only where S3 requires one (DeleteObjects): the SDK's default since 2025 streams
    // uploads as aws-chunked with a trailing CRC, which not every S3-compatible server reads.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: config.S3_ACCESS_KEY_ID,
            secretAccessKey: config.S3_SECRET_ACCESS_KEY,
          },
        }
      : {}),
  });
  return createS3ImageStore(client, config.S3_BUCKET);
}

export function createS3ImageStore(client: S3Client, bucket: string): ImageObjectStore {
  return {
    kind: "s3",
    async put(storeId, imageId, size, content, etag) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: objectKey(storeId, imageId, size),
          Body: content,
          ContentType: "image/webp",
          ContentLength: content.byteLength,
          CacheControl: "public, max-age=31536000, immutable",
          Metadata: { sha256: etag },
        }),
      );
    },
    async get(storeId, imageId, size) {
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: objectKey(storeId, imageId, size) }),
        );
        if (!answer.Body) return null;
        return Buffer.from(await answer.Body.transformToByteArray());
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return null;
        throw error;
      }
    },
    async remove(storeId, imageIds, sizes) {
      const keys = imageIds.flatMap((id) => sizes.map((size) => ({ Key: objectKey(storeId, id, size) })));
      // DeleteObjects takes at most 1,000 keys.
      for (let i = 0; i < keys.length; i += 1000)
        await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: keys.slice(i, i + 1000), Quiet: true },
          }),
        );
    },
  };
}
