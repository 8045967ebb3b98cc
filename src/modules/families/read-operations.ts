import Type, { type Static, type TProperties, type TSchema } from "typebox";
import type { Store } from "../../db/schema.ts";
import { CursorPage, Envelope } from "../../lib/http/schemas.ts";
import { Page, PageQuery, pageDescription } from "./developer-pages.ts";
import { defineOperation, type Viewer } from "./operation.ts";

/** What a resource's service answers for its reads (products, customers, orders). */
export interface ResourceReads<Q> {
  list(store: Store, query: Q, viewer?: Viewer): Promise<{ items: unknown[]; meta: unknown }>;
  listByPage(store: Store, page: number, perPage: number): Promise<{ items: unknown[]; meta: unknown }>;
  get(store: Store, id: string, viewer?: Viewer): Promise<unknown>;
  /** How many the store has (the counts its triggers keep: no scan). */
  count(store: Store): Promise<number>;
}

/**
 * The reads every listed resource offers, declared once for all of them: the cursor list (the
 * dashboard's and the Admin API's), the page-numbered list (the developer API's, as the spec has
 * it) and one record. A resource states its nouns, schemas and service; its routes file mounts
 * what each family offers.
 */
export function readOperations<R extends TSchema, L extends TSchema>(config: {
  /** The collection's path under the store: `/products`. */
  path: string;
  /** The record's path parameter: `{ id: Id("product") }`. */
  idParam: TProperties & { id: TSchema };
  resource: R;
  /** Nouns: "product", "products", "Products"; and the article of the singular ("a" or "an"). */
  singular: string;
  plural: string;
  pluralTitle: string;
  article: "a" | "an";
  listQuery: L;
  listDescription: string;
  /** Documented examples of the developer API's page. */
  pageExamples?: unknown[];
  service: ResourceReads<Static<L>>;
}) {
  const { service } = config;
  // `as never` below: the service answers records of `resource`, which a generic schema cannot
  // carry to the compiler; each resource's service is typed against its own schema where it is made.
  return {
    list: defineOperation({
      method: "GET",
      path: config.path,
      summary: `List ${config.plural}`,
      description: config.listDescription,
      querystring: config.listQuery,
      response: { 200: CursorPage(config.resource) },
      run: async ({ caller, query }) => {
        const page = await service.list(caller.store, query as Static<L>, caller.viewer);
        return { data: page.items, meta: page.meta } as never;
      },
    }),
    listByPage: defineOperation({
      method: "GET",
      path: config.path,
      summary: `List ${config.plural}, page by page`,
      description: pageDescription(config.plural),
      querystring: PageQuery,
      response: { 200: Page(config.resource, config.pluralTitle, config.pageExamples) },
      run: async ({ caller, query }) => {
        const page = await service.listByPage(caller.store, query.page, query.perPage);
        return { data: page.items, meta: page.meta } as never;
      },
    }),
    count: defineOperation({
      method: "GET",
      path: `${config.path}/count`,
      summary: `Count the store's ${config.plural}`,
      description: `How many ${config.plural} the store has, from counts kept as they are written (no scan, however many): for "40 of 1,250" beside a list, or a sync's progress. Filters are not taken: a filtered list says whether it has more by \`meta.nextCursor\`.`,
      response: {
        200: Envelope(
          Type.Object(
            { count: Type.Integer({ minimum: 0, examples: [1250] }) },
            { title: `${config.pluralTitle}Count` },
          ),
        ),
      },
      run: async ({ caller }) => ({ data: { count: await service.count(caller.store) } }) as never,
    }),
    get: defineOperation({
      method: "GET",
      path: `${config.path}/:id`,
      params: config.idParam,
      summary: `Get ${config.article} ${config.singular}`,
      response: { 200: Envelope(config.resource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) =>
        ({ data: await service.get(caller.store, (params as { id: string }).id, caller.viewer) }) as never,
    }),
  };
}
