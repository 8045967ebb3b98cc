import { type RawBuilder, sql } from "kysely";
import { AppError } from "./errors.ts";

/**
 * Keyset ("cursor") pagination. Lists are newest first by (created_at, id); with `updatedSince`
 * they run oldest change first by (updated_at, id), which is what an incremental sync wants. The
 * cursor carries the last row's key, so fetching page 1,000 costs the same index range scan as page 1.
 */
export type ListOrder = "created_desc" | "updated_asc";

export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
  updatedSince?: string | undefined;
}

export interface PagePlan {
  limit: number;
  order: ListOrder;
  after: { t: Date; id: string } | null;
  updatedSince: Date | null;
}

function badCursor(): AppError {
  return new AppError("VALIDATION_FAILED", {
    message: "The cursor is invalid.",
    details: [{ field: "cursor", message: "is not a cursor returned by this list" }],
  });
}

export function encodeCursor(order: ListOrder, t: Date, id: string): string {
  return Buffer.from(JSON.stringify([order === "created_desc" ? "c" : "u", t.getTime(), id])).toString(
    "base64url",
  );
}

/** The position a cursor from encodeCursor() names; anything else is a 400, never a query. */
export function decodeCursor(cursor: string, order: ListOrder): { t: Date; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== (order === "created_desc" ? "c" : "u") ||
    !Number.isSafeInteger(parsed[1]) ||
    typeof parsed[2] !== "string" ||
    parsed[2].length > 64
  ) {
    throw badCursor();
  }
  const t = new Date(parsed[1] as number);
  // A safe integer can still lie outside the Date range (±8.64e15 ms): that would reach SQL as NaN.
  if (Number.isNaN(t.getTime())) throw badCursor();
  return { t, id: parsed[2] };
}

export function planPage(query: PageQuery): PagePlan {
  const updatedSince = query.updatedSince ? new Date(query.updatedSince) : null;
  if (updatedSince && Number.isNaN(updatedSince.getTime())) {
    throw new AppError("VALIDATION_FAILED", {
      details: [{ field: "updatedSince", message: "must be a date-time" }],
    });
  }
  const order: ListOrder = updatedSince ? "updated_asc" : "created_desc";
  const after = query.cursor ? decodeCursor(query.cursor, order) : null;
  return { limit: query.limit, order, after, updatedSince };
}

/** The WHERE fragment and ORDER BY column for a plan (columns are unqualified; use on single-table lists). */
export function keyset(plan: PagePlan): {
  where: RawBuilder<boolean>[];
  column: "created_at" | "updated_at";
  direction: "asc" | "desc";
} {
  const column = plan.order === "created_desc" ? "created_at" : "updated_at";
  const direction = plan.order === "created_desc" ? "desc" : "asc";
  const where: RawBuilder<boolean>[] = [];
  if (plan.updatedSince) where.push(sql<boolean>`updated_at >= ${plan.updatedSince}`);
  if (plan.after) {
    where.push(
      direction === "desc"
        ? sql<boolean>`(${sql.ref(column)}, id) < (${plan.after.t}, ${plan.after.id})`
        : sql<boolean>`(${sql.ref(column)}, id) > (${plan.after.t}, ${plan.after.id})`,
    );
  }
  return { where, column, direction };
}

/** Rows were fetched with limit + 1; trims the extra and derives the next cursor from the last kept row. */
export function finishPage<R extends { id: string; created_at: Date; updated_at: Date }>(
  rows: R[],
  plan: PagePlan,
) {
  const hasMore = rows.length > plan.limit;
  const items = hasMore ? rows.slice(0, plan.limit) : rows;
  const last = items[items.length - 1];
  const nextCursor =
    hasMore && last
      ? encodeCursor(plan.order, plan.order === "created_desc" ? last.created_at : last.updated_at, last.id)
      : null;
  return { items, meta: { nextCursor, limit: plan.limit } };
}
