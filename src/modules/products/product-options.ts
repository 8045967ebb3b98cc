import { MAX_OPTION_VALUES, MAX_OPTIONS, MAX_VARIANTS } from "../../contracts/index.ts";
import type { ProductOptionJson } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";

/**
 * The rules that keep a product's options and variants consistent (issue 30), pure: a product has
 * at most 3 options, each with distinct values; every variant has one value of each option, and no
 * two variants the same values; a product without options has exactly one variant. The service
 * applies what these answer inside the product's lock.
 */

/** A variant's values, one per option in the options' order (the option1..3 columns). */
export type OptionValues = readonly string[];

/** The title of a variant: its values joined, or "Default" for a product without options. */
export function variantTitle(values: OptionValues): string {
  return values.length ? values.join(" / ") : "Default";
}

/** The key of a combination, for "no two variants alike" (values cannot contain U+0000). */
export const combinationKey = (values: OptionValues) => values.join("\u0000");

const invalid = (field: string, message: string) =>
  new AppError("VALIDATION_FAILED", { details: [{ field, message }] });

/** Options as given: at most 3, names distinct (case-insensitively), values distinct and bounded. */
export function checkOptions(options: readonly ProductOptionJson[], field = "options"): void {
  if (options.length > MAX_OPTIONS) throw invalid(field, `has more than ${MAX_OPTIONS} options`);
  const names = new Set<string>();
  options.forEach((o, i) => {
    const name = o.name.toLowerCase();
    if (names.has(name)) throw invalid(`${field}.${i}.name`, "names an option already listed");
    names.add(name);
    if (o.values.length === 0) throw invalid(`${field}.${i}.values`, "needs at least one value");
    if (o.values.length > MAX_OPTION_VALUES)
      throw invalid(`${field}.${i}.values`, `has more than ${MAX_OPTION_VALUES} values`);
    if (new Set(o.values).size !== o.values.length)
      throw invalid(`${field}.${i}.values`, "lists a value twice");
  });
}

/**
 * Variants' values against the options: each has one value per option, each value one of its
 * option's, and no combination twice. `field` names the list in errors (`variants`).
 */
export function checkVariantValues(
  options: readonly ProductOptionJson[],
  variants: ReadonlyArray<OptionValues>,
  field = "variants",
): void {
  if (variants.length === 0) throw invalid(field, "needs at least one variant");
  if (variants.length > MAX_VARIANTS) throw invalid(field, `has more than ${MAX_VARIANTS} variants`);
  if (options.length === 0 && variants.length > 1)
    throw invalid(field, "a product without options has exactly one variant");
  const seen = new Set<string>();
  variants.forEach((values, i) => {
    if (values.length !== options.length)
      throw invalid(
        `${field}.${i}.optionValues`,
        `needs one value for each option (${options.length ? options.map((o) => o.name).join(", ") : "none"})`,
      );
    values.forEach((v, j) => {
      if (!options[j]!.values.includes(v))
        throw invalid(`${field}.${i}.optionValues.${j}`, `is not a value of ${options[j]!.name}`);
    });
    const key = combinationKey(values);
    if (seen.has(key)) throw invalid(`${field}.${i}.optionValues`, "repeats another variant's values");
    seen.add(key);
  });
}

/**
 * Options with the values a new variant brings added (a variant may introduce a value of an
 * existing option, as Shopify's bulk create does); a value list past its bound is refused.
 */
export function withValues(options: readonly ProductOptionJson[], values: OptionValues): ProductOptionJson[] {
  return options.map((o, j) => {
    const v = values[j];
    if (v === undefined || o.values.includes(v)) return o;
    if (o.values.length >= MAX_OPTION_VALUES)
      throw invalid(`optionValues.${j}`, `${o.name} has ${MAX_OPTION_VALUES} values already`);
    return { name: o.name, values: [...o.values, v] };
  });
}

/** How a product's variants follow an edit of its options. */
export interface OptionsPlan {
  options: ProductOptionJson[];
  /** Variants whose values are no longer offered: to delete. */
  removed: string[];
  /** Each remaining variant's values in the new options' order. */
  values: Map<string, string[]>;
}

/**
 * Replacing a product's options with `next` (matched to the current ones by name): a removed value
 * removes its variants; a new option gives every variant its first value; an option removed must
 * leave no two variants alike (one value in use); the options' and values' order is the new one.
 * At least one variant must remain.
 */
export function planOptions(
  current: readonly ProductOptionJson[],
  next: readonly ProductOptionJson[],
  variants: ReadonlyArray<{ id: string; values: OptionValues }>,
): OptionsPlan {
  checkOptions(next);
  const removed: string[] = [];
  const values = new Map<string, string[]>();
  const seen = new Map<string, string>();
  for (const variant of variants) {
    const byName = new Map(current.map((o, j) => [o.name.toLowerCase(), variant.values[j]!]));
    const out: string[] = [];
    let gone = false;
    for (const option of next) {
      const had = byName.get(option.name.toLowerCase());
      if (had === undefined) out.push(option.values[0]!);
      else if (option.values.includes(had)) out.push(had);
      else gone = true;
    }
    if (gone) {
      removed.push(variant.id);
      continue;
    }
    const key = combinationKey(out);
    const other = seen.get(key);
    if (other !== undefined)
      throw new AppError("CONFLICT", {
        message:
          "Removing this option would leave two variants alike: delete the variants you no longer sell first.",
        details: [
          { field: "options", message: `variants ${other} and ${variant.id} would have the same values` },
        ],
      });
    seen.set(key, variant.id);
    values.set(variant.id, out);
  }
  if (values.size === 0)
    throw new AppError("CONFLICT", {
      message: "A product keeps at least one variant: these options would remove every one.",
      details: [{ field: "options", message: "removes every variant" }],
    });
  return { options: next.map((o) => ({ name: o.name, values: [...o.values] })), removed, values };
}
