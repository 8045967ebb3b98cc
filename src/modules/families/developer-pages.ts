import Type, { type TSchema } from "typebox";
import { PAGE_SIZE, PAGE_WINDOW } from "../../contracts/limits.ts";

/**
 * The developer API's page-numbered lists (`page`, `perPage`, and `meta` with the
 * totals), shared by products, orders and customers. Totals come from the counts triggers keep
 * per store (migrations 20261123_0040 and 20261126_0042): reading one costs at most 16 rows.
 */
export function PageMeta(noun: string) {
  return Type.Object({
    page: Type.Integer({ minimum: 1, description: "The page asked for (may be past `totalPages`)." }),
    perPage: Type.Integer({ minimum: 1, maximum: PAGE_SIZE.numbered.max }),
    total: Type.Integer({ minimum: 0, description: `${noun} in the store.` }),
    totalPages: Type.Integer({ minimum: 0, description: "ceil(total / perPage); 0 for an empty store." }),
  });
}

export const PageQuery = Type.Object(
  {
    page: Type.Integer({
      minimum: 1,
      maximum: PAGE_WINDOW,
      default: 1,
      description: `1-based page number. \`page × perPage\` may be at most ${PAGE_WINDOW.toLocaleString("en")}: deeper pages answer 400 \`VALIDATION_FAILED\` (an offset costs a walk over every row it skips, so the depth is bounded to keep every page's cost flat).`,
    }),
    perPage: Type.Integer({
      minimum: 1,
      maximum: PAGE_SIZE.numbered.max,
      default: PAGE_SIZE.numbered.default,
      description: `Items per page, 1 to ${PAGE_SIZE.numbered.max}.`,
    }),
  },
  { additionalProperties: false },
);

/** What a page-numbered list's description says, for `noun` ("orders"). */
export function pageDescription(noun: string): string {
  return `Newest first (creation time, then id). \`page\` from 1 (default 1), \`perPage\` 1-${PAGE_SIZE.numbered.max} (default ${PAGE_SIZE.numbered.default}); other values, or unknown parameters, answer 400 \`VALIDATION_FAILED\` naming the parameter. Pages reach the first ${PAGE_WINDOW.toLocaleString("en")} ${noun}: \`page × perPage\` above ${PAGE_WINDOW.toLocaleString("en")} answers 400 \`VALIDATION_FAILED\` with \`details[0].field\` \`page\` (at \`perPage=${PAGE_SIZE.numbered.max}\`, the last page is ${PAGE_WINDOW / PAGE_SIZE.numbered.max}). A page past the end answers an empty \`data\` with the true totals in \`meta\`. Offsets shift when ${noun} are created or deleted between calls.`;
}

/** A page of `item`s in the envelope with `meta`. */
export function Page<T extends TSchema>(item: T, noun: string, examples?: unknown[]) {
  return Type.Object(
    { success: Type.Literal(true), data: Type.Array(item), meta: PageMeta(noun) },
    {
      description: "One page; `data` is empty past the last page, and `meta` is always filled in.",
      ...(examples ? { examples } : {}),
    },
  );
}
