-- Product images (issue 32, part 1). An image belongs to a product and, optionally, to one of its
-- variants; it goes with the product (cascade), and a deleted variant leaves it on the product.
-- What is stored is never what was uploaded: each image is decoded and re-encoded as WebP in three
-- sizes (product_image_files), so nothing active in the upload (a script in an SVG, a polyglot's
-- second meaning) can reach a browser.
CREATE TABLE product_images (
  store_id    text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id          text NOT NULL,
  product_id  text NOT NULL,
  variant_id  text,
  position    integer NOT NULL CHECK (position >= 0),
  alt         text NOT NULL DEFAULT '',
  width       integer NOT NULL CHECK (width > 0),
  height      integer NOT NULL CHECK (height > 0),
  bytes       bigint NOT NULL CHECK (bytes >= 0),
  storage     text NOT NULL CHECK (storage IN ('database', 's3')),
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE,
  FOREIGN KEY (store_id, variant_id) REFERENCES product_variants (store_id, id) ON DELETE SET NULL (variant_id)
);
COMMENT ON COLUMN product_images.bytes IS 'Bytes stored for the image: the sum of its sizes (what the store''s image bytes count).';
COMMENT ON COLUMN product_images.storage IS 'Where its files are: database (product_image_files.content) or s3 (the configured bucket).';
CREATE INDEX product_images_product_idx ON product_images (store_id, product_id, position);
CREATE INDEX product_images_variant_idx ON product_images (store_id, variant_id) WHERE variant_id IS NOT NULL;

-- One row per size: what its URL answers (ETag, bytes, dimensions) and, stored in the database,
-- the bytes themselves.
CREATE TABLE product_image_files (
  store_id   text NOT NULL,
  image_id   text NOT NULL,
  size       text NOT NULL CHECK (size IN ('list', 'phone', 'page')),
  width      integer NOT NULL CHECK (width > 0),
  height     integer NOT NULL CHECK (height > 0),
  bytes      integer NOT NULL CHECK (bytes > 0),
  etag       text NOT NULL,
  content    bytea,
  PRIMARY KEY (store_id, image_id, size),
  FOREIGN KEY (store_id, image_id) REFERENCES product_images (store_id, id) ON DELETE CASCADE
);
COMMENT ON COLUMN product_image_files.etag IS 'SHA-256 of the file (base64url): its ETag.';
COMMENT ON COLUMN product_image_files.content IS 'The WebP file when the image is stored in the database; null when in S3.';

-- What each store holds, against its bounds (IMAGE_MAX_PER_STORE, IMAGE_MAX_BYTES_PER_STORE). An
-- upload reserves its count and bytes here in one conditional UPDATE before it inserts (so a
-- concurrent burst cannot pass the bound), and a delete, the product's cascade included, gives
-- them back through the trigger below.
CREATE TABLE store_image_usage (
  store_id  text PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  images    integer NOT NULL DEFAULT 0 CHECK (images >= 0),
  bytes     bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0)
);

-- Statement-level with a transition table: a product's cascade of twenty images is one UPDATE. An
-- UPDATE, never an upsert: when the store itself is deleted its usage row may already be gone.
CREATE FUNCTION release_image_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_image_usage AS u SET images = u.images - d.n, bytes = u.bytes - d.b
  FROM (SELECT store_id, count(*) AS n, sum(bytes) AS b FROM deleted GROUP BY store_id) AS d
  WHERE u.store_id = d.store_id;
  RETURN NULL;
END $$;
CREATE TRIGGER product_images_release AFTER DELETE ON product_images
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION release_image_usage();
