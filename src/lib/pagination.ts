import { createHash } from "node:crypto";
import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import Type from "typebox";
import { isStorableInstant, parseDateTime } from "../contracts/date-time.ts";
import { PAGE_WINDOW } from "../contracts/limits.ts";
import { AppError } from "./errors.ts";

/**
 * Keyset ("cursor") pagination over any sort a list offers. A list declares its sort keys (the API
 * name, the column, the kind of value); a page is ordered by (column, id) and the cursor carries
 * the last row's (value, id), so page 1,000 costs the same index range scan as page 1 for every
 * sort. Lists are newest first by default; with `updatedSince` they run oldest change first by
 * (updated_at, id), which is what an incremental sync wants.
 *
 * A cursor also names the sort and the search it was made for (a short hash of the filters): used
 * with another sort or search it is a 400, never a silently wrong page.
 */
export type SortType = "time" | "number" | "text";
export interface SortColumn {
  column: string;
  type: SortType;
}
/** API sort key (`createdAt`) -> its column. Every table has `createdAt` and `updatedAt`. */
export type SortTable = Record<string, SortColumn> & {
  createdAt: SortColumn;
  updatedAt: SortColumn;
};

export const CREATED_AND_UPDATED = {
  createdAt: { column: "created_at", type: "time" },
  updatedAt: { column: "updated_at", type: "time" },
} as const satisfies SortTable;

export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
  updatedSince?: string | undefined;
  sort?: string | undefined;
}

export type SortValue = Date | number | string;

export interface PagePlan {
  limit: number;
  /** The sort as the API names it: `-createdAt`, `title`. */
  sort: string;
  column: string;
  type: SortType;
  direction: "asc" | "desc";
  after: { v: SortValue; id: string } | null;
  updatedSince: Date | null;
  /** What the cursor is bound to besides the sort (a hash of the search and filters). */
  bound: string;
}

export const DEFAULT_SORT = "-createdAt";

/** The `sort` query parameter of a list: each key ascending, or descending with a leading `-`. */
export function SortParam(sorts: SortTable, description: string) {
  const keys = Object.keys(sorts);
  return Type.Enum([...keys.flatMap((k) => [k, `-${k}`])], {
    type: "string",
    // No `default` keyword: Ajv would fill it in, and a sort given with updatedSince is an error.
    description: `${description} A leading \`-\` sorts descending. Default \`${DEFAULT_SORT}\` (newest first).`,
  });
}

function invalid(field: string, message: string): AppError {
  return new AppError("VALIDATION_FAILED", {
    message: `The ${field} is invalid.`,
    details: [{ field, message }],
  });
}

const badCursor = () => invalid("cursor", "is not a cursor returned by this list");

function boundOf(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters).filter(([, v]) => v !== undefined && v !== null && v !== "");
  if (entries.length === 0) return "";
  entries.sort(([a], [b]) => a.localeCompare(b));
  return createHash("sha256").update(JSON.stringify(entries)).digest("base64url").slice(0, 12);
}

function encodeValue(v: SortValue): string | number {
  return v instanceof Date ? v.getTime() : v;
}

function decodeValue(raw: unknown, type: SortType): SortValue | null {
  if (type === "time") {
    // Only an instant the databases store and read back (years 1-9999): a forged one outside it
    // would reach SQL as NaN or as a date the embedded database refuses.
    return typeof raw === "number" && isStorableInstant(raw) ? new Date(raw) : null;
  }
  if (type === "number") return Number.isSafeInteger(raw) ? (raw as number) : null;
  return typeof raw === "string" && raw.length <= 1000 ? raw : null;
}

export function encodeCursor(plan: Pick<PagePlan, "sort" | "bound">, v: SortValue, id: string): string {
  return Buffer.from(JSON.stringify([plan.sort, encodeValue(v), id, plan.bound])).toString("base64url");
}

/** The position a cursor names for this plan; anything else is a 400, never a query. */
export function decodeCursor(cursor: string, plan: Omit<PagePlan, "after">): { v: SortValue; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed)) throw badCursor();
  // Cursors made before lists could be sorted or searched: ["c" | "u", ms, id].
  if (parsed.length === 3 && (parsed[0] === "c" || parsed[0] === "u") && plan.bound === "") {
    const legacySort = parsed[0] === "c" ? DEFAULT_SORT : "updatedAt";
    parsed = [legacySort, parsed[1], parsed[2], ""];
  }
  const [sort, raw, id, bound] = parsed as unknown[];
  if ((parsed as unknown[]).length !== 4 || typeof id !== "string" || id.length > 64) throw badCursor();
  if (sort !== plan.sort || bound !== plan.bound)
    throw invalid("cursor", "belongs to another sort or search of this list: start again without it");
  const v = decodeValue(raw, plan.type);
  if (v === null) throw badCursor();
  return { v, id };
}

/**
 * The page a query asks for. `filters` are the list's search and filter parameters: the cursor is
 * bound to them.
 */
export function planPage(
  query: PageQuery,
  sorts: SortTable = CREATED_AND_UPDATED,
  filters: Record<string, unknown> = {},
): PagePlan {
  const updatedSince = query.updatedSince ? parseDateTime(query.updatedSince) : null;
  // The route's schema has already refused it; a caller without one gets the same answer.
  if (query.updatedSince && !updatedSince)
    throw invalid("updatedSince", "must be a date-time in the years 1 to 9999");
  let sort = query.sort ?? DEFAULT_SORT;
  if (updatedSince) {
    // An incremental sync reads changes oldest first; any other order would skip changes.
    if (query.sort !== undefined && query.sort !== "updatedAt")
      throw invalid(
        "sort",
        "must be updatedAt (or left out) with updatedSince: changes are listed oldest first",
      );
    sort = "updatedAt";
  }
  const key = sort.startsWith("-") ? sort.slice(1) : sort;
  const column = sorts[key];
  if (!column)
    throw invalid("sort", `must be one of ${Object.keys(sorts).join(", ")} (with - for descending)`);
  const base = {
    limit: query.limit,
    sort,
    column: column.column,
    type: column.type,
    direction: sort.startsWith("-") ? ("desc" as const) : ("asc" as const),
    updatedSince,
    bound: boundOf(filters),
  };
  return { ...base, after: query.cursor ? decodeCursor(query.cursor, base) : null };
}

/**
 * The WHERE fragments and ORDER BY column for a plan. `table` qualifies the columns when the list
 * joins other tables.
 */
export function keyset(
  plan: PagePlan,
  table?: string,
): {
  where: RawBuilder<boolean>[];
  column: RawBuilder<unknown>;
  id: RawBuilder<unknown>;
  direction: "asc" | "desc";
} {
  const ref = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  const column = ref(plan.column);
  const id = ref("id");
  const where: RawBuilder<boolean>[] = [];
  if (plan.updatedSince) where.push(sql<boolean>`${ref("updated_at")} >= ${plan.updatedSince}`);
  if (plan.after) {
    where.push(
      plan.direction === "desc"
        ? sql<boolean>`(${column}, ${id}) < (${plan.after.v}, ${plan.after.id})`
        : sql<boolean>`(${column}, ${id}) > (${plan.after.v}, ${plan.after.id})`,
    );
  }
  return { where, column, id, direction: plan.direction };
}

/**
 * A list query as one keyset page of `plan`: its conditions, its order (the sort's column, then
 * the id, both one way) and one row more than the page (finishPage trims it and makes the cursor).
 * `table` qualifies the columns when the query joins.
 */
export function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  plan: PagePlan,
  table?: string,
): SelectQueryBuilder<DB, TB, O> {
  const { where, column, id, direction } = keyset(plan, table);
  let q = query;
  for (const w of where) q = q.where(w);
  return q
    .orderBy(column, direction)
    .orderBy(id, direction)
    .limit(plan.limit + 1);
}

/** Rows were fetched with limit + 1; trims the extra and derives the next cursor from the last kept row. */
export function finishPage<R extends { id: string }>(rows: R[], plan: PagePlan) {
  const hasMore = rows.length > plan.limit;
  const items = hasMore ? rows.slice(0, plan.limit) : rows;
  const last = items[items.length - 1];
  const nextCursor =
    hasMore && last
      ? encodeCursor(plan, (last as unknown as Record<string, SortValue>)[plan.column]!, last.id)
      : null;
  return { items, meta: { nextCursor, limit: plan.limit } };
}

/**
 * One batch of a bulk export (modules/exports): the store's records in ascending id order after
 * `after`, created at or before `asOf` (the export's snapshot time), changed at or after
 * `updatedSince` when given. Ids never change, so a record is read at most once by an export and
 * its resumptions, whatever changes while it runs.
 */
export interface ExportWindow {
  after: string | null;
  asOf: Date;
  updatedSince: Date | null;
  /** The inventory export's one location (null or absent: every location; other exports have none). */
  locationId?: string | null;
  limit: number;
}

/** The WHERE fragments of an export batch (order by id ascending, limit `window.limit`). */
export function exportWhere(window: ExportWindow, table?: string): RawBuilder<boolean>[] {
  const ref = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  const where = [sql<boolean>`${ref("created_at")} <= ${window.asOf}`];
  if (window.after !== null) where.push(sql<boolean>`${ref("id")} > ${window.after}`);
  if (window.updatedSince) where.push(sql<boolean>`${ref("updated_at")} >= ${window.updatedSince}`);
  return where;
}

const escapeLike = (text: string) => text.trim().replace(/[\\%_]/g, (c) => `\\${c}`);

/** A search text as a LIKE pattern matching it anywhere, its wildcards taken literally. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** Refuses an offset page that ends past the first PAGE_WINDOW `noun` (400 naming `page`). */
export function assertPageWindow(page: number, perPage: number, noun: string): void {
  if (page * perPage <= PAGE_WINDOW) return;
  throw new AppError("VALIDATION_FAILED", {
    message: `Pages reach only the first ${PAGE_WINDOW.toLocaleString("en")} ${noun}, newest first: ask for a page with page × perPage ≤ ${PAGE_WINDOW}.`,
    details: [
      {
        field: "page",
        message: `page × perPage is ${page * perPage}, more than ${PAGE_WINDOW}; the last page for perPage=${perPage} is ${Math.floor(PAGE_WINDOW / perPage)}`,
      },
    ],
  });
}
