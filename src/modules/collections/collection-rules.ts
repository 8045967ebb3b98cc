import { type RawBuilder, sql } from "kysely";
import { COLLECTION_RULE_FIELDS, type CollectionMatch } from "../../contracts/index.ts";
import type { CollectionRuleJson } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import { toMinorUnits } from "../../lib/money.ts";
import { containsPattern } from "../../lib/pagination.ts";

/**
 * An automatic collection's rules (issue 30) as one SQL condition on `products` (alias `p`):
 * evaluated when the collection is read, so a product edit never has to update a membership. Text
 * compares without case; `contains` and `starts_with` treat `%` and `_` as the characters they
 * are; a tag is one of the product's tags; price reads the variants' prices (greater than: its
 * dearest; less than: its cheapest; equals: any variant's).
 */
export function rulesCondition(
  rules: readonly CollectionRuleJson[],
  match: CollectionMatch,
  currency: string,
): RawBuilder<boolean> {
  const parts = rules.map((r) => ruleCondition(r, currency));
  if (parts.length === 0) return sql<boolean>`false`;
  return sql<boolean>`(${sql.join(parts, match === "all" ? sql` AND ` : sql` OR `)})`;
}

const COLUMN = { title: "title", vendor: "vendor", product_type: "product_type" } as const;

function ruleCondition(rule: CollectionRuleJson, currency: string): RawBuilder<boolean> {
  const { field, relation, value } = rule;
  if (field === "tag") {
    const has = sql<boolean>`p.tags @> ARRAY[${value}]::text[]`;
    return relation === "equals" ? has : sql<boolean>`NOT ${has}`;
  }
  if (field === "price") {
    const minor = toMinorUnits(value, currency) ?? 0;
    if (relation === "greater_than") return sql<boolean>`p.price_max_minor > ${minor}`;
    if (relation === "less_than") return sql<boolean>`p.price_minor < ${minor}`;
    return sql<boolean>`EXISTS (SELECT 1 FROM product_variants v
      WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.price_minor = ${minor})`;
  }
  const column = sql.ref(`p.${COLUMN[field]}`);
  switch (relation) {
    case "equals":
      return sql<boolean>`lower(${column}) = lower(${value})`;
    case "not_equals":
      return sql<boolean>`lower(${column}) <> lower(${value})`;
    case "contains":
      return sql<boolean>`${column} ILIKE ${containsPattern(value)}`;
    default:
      return sql<boolean>`${column} ILIKE ${`${containsPattern(value).slice(1)}`}`;
  }
}

/** Rules as given: each relation one its field allows, a price one the store's currency can write. */
export function checkRules(rules: readonly CollectionRuleJson[], currency: string): void {
  rules.forEach((r, i) => {
    const allowed: readonly string[] = COLLECTION_RULE_FIELDS[r.field].relations;
    if (!allowed.includes(r.relation))
      throw new AppError("VALIDATION_FAILED", {
        details: [
          { field: `rules.${i}.relation`, message: `must be one of ${allowed.join(", ")} for ${r.field}` },
        ],
      });
    if (r.field === "price" && toMinorUnits(r.value, currency) === null)
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: `rules.${i}.value`, message: `is not an amount in ${currency}` }],
      });
  });
}
