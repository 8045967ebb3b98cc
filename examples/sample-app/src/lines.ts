/** A line as a packer reads it, without its quantity: product, the variant (size, colour) sold, SKU. */
export function lineLabel(l: { title: string; variantTitle: string | null; sku: string | null }): string {
  const variant = l.variantTitle && l.variantTitle !== "Default" ? ` (${l.variantTitle})` : "";
  return `${l.title}${variant}${l.sku ? ` [${l.sku}]` : ""}`;
}

/** An order's lines as a packer reads them: `2 × Harbor shirt (Navy / M) [HS-NAVY-M], …`. */
export function itemsOf(
  lines: ReadonlyArray<{ quantity: number; title: string; variantTitle: string | null; sku: string | null }>,
): string {
  return lines.map((l) => `${l.quantity} × ${lineLabel(l)}`).join(", ");
}
