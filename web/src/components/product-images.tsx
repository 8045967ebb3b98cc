import { useQueryClient } from "@tanstack/react-query";
import { type DragEvent, useId, useRef, useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { Product } from "../api/types.ts";
import { useConfirm, useNotify } from "./ui.tsx";

export type ProductImage = Product["images"][number];

/** The accepted formats (the server decides from the bytes; this only filters the picker). */
const ACCEPT = "image/jpeg,image/png,image/webp,image/gif";
/** IMAGE_UPLOAD_MAX_BYTES' default: a larger file is refused here before it is sent. */
const MAX_BYTES = 20 * 1_048_576;

/** `srcset` of an image's sizes (width descriptors), for the browser to pick from. */
export function srcSet(image: ProductImage): string {
  const { list, phone, page } = image.sizes;
  return `${list.url} ${list.width}w, ${phone.url} ${phone.width}w, ${page.url} ${page.width}w`;
}

/** An image at a size the layout says (`sizes`), the browser choosing the file. */
export function ProductPicture(props: {
  image: ProductImage;
  sizes: string;
  className?: string;
  /** The alt text when the image has none. */
  fallbackAlt?: string;
  /** Decorative (beside a title that says it all): no alt text read out. */
  decorative?: boolean;
}) {
  const { image } = props;
  return (
    <img
      className={props.className}
      src={image.sizes.phone.url}
      srcSet={srcSet(image)}
      sizes={props.sizes}
      width={image.width}
      height={image.height}
      alt={props.decorative ? "" : image.alt || (props.fallbackAlt ?? "")}
      loading="lazy"
      decoding="async"
    />
  );
}

/** A file's bytes in base64 (the `attachment` of the upload). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("The file could not be read."));
    reader.readAsDataURL(file);
  });
}

/**
 * A product's images (issue 32): dropped or picked, several at once, uploaded one after another
 * (each answered on its own: one refused file does not stop the rest); put in order by dragging or
 * with the buttons (the keyboard's way); each with its alt text and, optionally, its variant.
 */
export function ProductImages(props: { slug: string; product: Product }) {
  const { slug, product } = props;
  const queryClient = useQueryClient();
  const notify = useNotify();
  const confirm = useConfirm();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<{ done: number; of: number } | null>(null);
  const [failures, setFailures] = useState<Array<{ name: string; message: string }>>([]);
  const [dragged, setDragged] = useState<string | null>(null);
  const images = product.images;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["products", slug] });
  const path = { slug, id: product.id };

  async function upload(files: File[]) {
    if (files.length === 0) return;
    setFailures([]);
    const failed: Array<{ name: string; message: string }> = [];
    setProgress({ done: 0, of: files.length });
    let added = 0;
    for (const [i, file] of files.entries()) {
      try {
        if (file.size > MAX_BYTES) throw new Error("is larger than 20 MB");
        await unwrap(
          api.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
            params: { path },
            body: { attachment: await base64Of(file) },
          }),
        );
        added++;
      } catch (error) {
        const message =
          error instanceof ApiError
            ? (error.fields[0]?.message ?? error.message)
            : error instanceof Error
              ? error.message
              : "could not be uploaded";
        failed.push({ name: file.name, message });
      }
      setProgress({ done: i + 1, of: files.length });
    }
    setProgress(null);
    setFailures(failed);
    if (added) notify(added === 1 ? "Image added" : `${added} images added`);
    await refresh();
  }

  async function change(
    image: ProductImage,
    body: { alt?: string; variantId?: string | null; position?: number },
  ) {
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
          params: { path: { ...path, imageId: image.id } },
          body,
        }),
      );
      await refresh();
      return true;
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Saving the image failed.", "error");
      return false;
    }
  }

  async function remove(image: ProductImage) {
    const ok = await confirm({
      title: "Delete this image?",
      message: "It disappears from the product everywhere it is shown.",
      confirmLabel: "Delete image",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
          params: { path: { ...path, imageId: image.id } },
        }),
      );
      notify("Image deleted");
      await refresh();
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Deleting failed.", "error");
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    // Files from the desktop; a card dragged within the grid is handled by the card.
    if (event.dataTransfer.files.length) void upload([...event.dataTransfer.files]);
  };

  return (
    <div className="images">
      {images.length ? (
        <ol className="image-grid" aria-label="Images, in order">
          {images.map((image, i) => (
            <li
              key={image.id}
              className={`image-card${dragged === image.id ? " dragging" : ""}`}
              draggable
              onDragStart={(e) => {
                setDragged(image.id);
                e.dataTransfer.effectAllowed = "move";
              }}
              onDragEnd={() => setDragged(null)}
              onDragOver={(e) => {
                if (dragged) e.preventDefault();
              }}
              onDrop={(e) => {
                if (!dragged) return;
                e.preventDefault();
                e.stopPropagation();
                const moving = images.find((x) => x.id === dragged);
                setDragged(null);
                if (moving && moving.id !== image.id) void change(moving, { position: i });
              }}
            >
              <div className="image-frame">
                <ProductPicture image={image} sizes="(max-width: 600px) 45vw, 180px" fallbackAlt="" />
                {i === 0 ? <span className="image-badge">Main image</span> : null}
              </div>
              <ImageDetails
                key={`${image.alt}|${image.variantId}`}
                image={image}
                product={product}
                onSave={(body) => change(image, body)}
              />
              <div className="image-actions">
                <button
                  type="button"
                  className="secondary small"
                  disabled={i === 0}
                  onClick={() => change(image, { position: i - 1 })}
                  aria-label={`Move image ${i + 1} earlier`}
                >
                  ←
                </button>
                <button
                  type="button"
                  className="secondary small"
                  disabled={i === images.length - 1}
                  onClick={() => change(image, { position: i + 1 })}
                  aria-label={`Move image ${i + 1} later`}
                >
                  →
                </button>
                <button
                  type="button"
                  className="danger small"
                  onClick={() => remove(image)}
                  aria-label={`Delete image ${i + 1}`}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ol>
      ) : null}
      <label
        htmlFor={inputId}
        className={`drop-zone${over ? " over" : ""}`}
        onDragOver={(e) => {
          if (dragged) return;
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <span className="drop-title">
          {progress
            ? `Uploading ${Math.min(progress.done + 1, progress.of)} of ${progress.of}…`
            : images.length
              ? "Add more images"
              : "Add images"}
        </span>
        <span className="muted small">
          Drop files here or choose them: JPEG, PNG, WebP or GIF, up to 20 MB and 25 megapixels each. The
          first image is the product's main image.
        </span>
        <input
          ref={input}
          id={inputId}
          type="file"
          accept={ACCEPT}
          multiple
          className="visually-hidden-input"
          disabled={progress !== null}
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = "";
            void upload(files);
          }}
        />
      </label>
      {failures.length ? (
        <div className="form-errors" role="alert">
          <p>
            {failures.length === 1 ? "One file was not added:" : `${failures.length} files were not added:`}
          </p>
          <ul>
            {failures.map((f) => (
              <li key={f.name}>
                <span className="user-text">{f.name}</span> {f.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** An image's alt text and variant, saved together. */
function ImageDetails(props: {
  image: ProductImage;
  product: Product;
  onSave: (body: { alt: string; variantId: string | null }) => Promise<boolean>;
}) {
  const { image, product } = props;
  const [alt, setAlt] = useState(image.alt);
  const [variantId, setVariantId] = useState(image.variantId ?? "");
  const [busy, setBusy] = useState(false);
  const altId = useId();
  const variantFieldId = useId();
  const dirty = alt !== image.alt || variantId !== (image.variantId ?? "");
  return (
    <form
      className="image-details"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await props.onSave({ alt: alt.trim(), variantId: variantId || null });
        setBusy(false);
      }}
    >
      <label htmlFor={altId} className="small">
        Alt text
      </label>
      <input
        id={altId}
        value={alt}
        maxLength={512}
        placeholder="What the image shows"
        onChange={(e) => setAlt(e.target.value)}
      />
      {product.variants.length > 1 ? (
        <>
          <label htmlFor={variantFieldId} className="small">
            Variant
          </label>
          <select id={variantFieldId} value={variantId} onChange={(e) => setVariantId(e.target.value)}>
            <option value="">All variants</option>
            {product.variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.title}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {dirty ? (
        <button type="submit" className="small" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
      ) : null}
    </form>
  );
}
