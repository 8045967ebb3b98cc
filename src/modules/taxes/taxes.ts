import { sql } from "kysely";
import Type, { type Static } from "typebox";
import {
  CountryCode,
  MAX_TAX_RATES,
  Rate,
  Scope,
  TaxRateResource,
  TaxRegion,
  TaxTitle,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Store, TaxRate } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Body, Envelope, Id } from "../../lib/http/schemas.ts";
import { newId } from "../../lib/ids.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatRate, toRate } from "../../lib/money.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import type { TaxRateRule } from "../orders/order-money.ts";

/**
 * Tax rates (issue 31): the merchant sets a rate per country, and per region where it differs; an
 * order pays the rates of the place it ships to (the store's address when it ships nowhere): the
 * country's and its region's, each its own tax line. No tax service: a later issue lets apps
 * compute tax. Dashboard only for now, under manage_store (the store's settings).
 */

const CreateTaxRateBody = Body(
  {
    country: CountryCode,
    region: Type.Optional(Type.Union([TaxRegion, Type.Null()])),
    title: TaxTitle,
    rate: Rate,
  },
  { examples: [{ country: "US", region: "NY", title: "NY State Tax", rate: "4" }] },
);
const UpdateTaxRateBody = Type.Object(
  { title: Type.Optional(TaxTitle), rate: Type.Optional(Rate) },
  { additionalProperties: false, minProperties: 1 },
);
const TaxRateIdParam = { id: Id("taxRate") };

function toTaxRateResource(r: TaxRate) {
  return {
    id: r.id,
    country: r.country,
    region: r.region === "" ? null : r.region,
    title: r.title,
    rate: formatRate(r.rate_ppm),
    createdAt: isoString(r.created_at),
    updatedAt: isoString(r.updated_at),
  };
}

export function createTaxService(deps: { db: Db; clock: Clock }) {
  const { db } = deps;
  const rows = (storeId: string, tx: Executor = db) =>
    tx
      .selectFrom("tax_rates")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("country")
      .orderBy("region")
      .orderBy("id")
      .execute();
  const find = (storeId: string, id: string, tx: Executor = db) =>
    tx
      .selectFrom("tax_rates")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .executeTakeFirst();
  return {
    async list(store: Store) {
      return (await rows(store.id)).map(toTaxRateResource);
    },
    async create(store: Store, input: Static<typeof CreateTaxRateBody>) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        // The store's row locked: two creates cannot both pass the count below.
        await tx.selectFrom("stores").select("id").where("id", "=", store.id).forUpdate().executeTakeFirst();
        const count = (await rows(store.id, tx)).length;
        if (count >= MAX_TAX_RATES)
          throw new AppError("CONFLICT", {
            message: `A store has at most ${MAX_TAX_RATES} tax rates.`,
            details: [{ field: "country", message: `the store has ${MAX_TAX_RATES} tax rates already` }],
          });
        const row = await tx
          .insertInto("tax_rates")
          .values({
            store_id: store.id,
            id: newId("taxRate"),
            country: input.country,
            region: input.region?.trim() ?? "",
            title: input.title.trim(),
            rate_ppm: toRate(input.rate)!,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.expression(sql`store_id, country, lower(region)`).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row)
          throw new AppError("CONFLICT", {
            message: "This place has a tax rate already: change that one.",
            details: [{ field: input.region ? "region" : "country", message: "has a tax rate already" }],
          });
        return toTaxRateResource(row);
      });
    },
    async update(store: Store, id: string, input: Static<typeof UpdateTaxRateBody>) {
      const current = await find(store.id, id);
      if (!current) throw notFound("Tax rate");
      const row = await db
        .updateTable("tax_rates")
        .set({
          ...(input.title !== undefined ? { title: input.title.trim() } : {}),
          ...(input.rate !== undefined ? { rate_ppm: toRate(input.rate)! } : {}),
          updated_at: deps.clock.now(),
        })
        .where("store_id", "=", store.id)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound("Tax rate");
      return toTaxRateResource(row);
    },
    async remove(store: Store, id: string) {
      const row = await db
        .deleteFrom("tax_rates")
        .where("store_id", "=", store.id)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound("Tax rate");
      return toTaxRateResource(row);
    },
    /** The rates an order shipping to `country` (and `region`) pays: the country's first, then its region's. */
    async ratesFor(
      storeId: string,
      country: string | null,
      region: string | null,
      tx: Executor,
    ): Promise<TaxRateRule[]> {
      if (!country) return [];
      const found = await tx
        .selectFrom("tax_rates")
        .select(["title", "rate_ppm", "region"])
        .where("store_id", "=", storeId)
        .where("country", "=", country)
        .where((eb) =>
          eb.or([
            eb("region", "=", ""),
            ...(region ? [eb(sql<string>`lower(region)`, "=", region.trim().toLowerCase())] : []),
          ]),
        )
        .orderBy("region")
        .execute();
      return found.map((r) => ({ title: r.title, ratePpm: r.rate_ppm }));
    },
  };
}
export type TaxService = ReturnType<typeof createTaxService>;

export function taxRoutes(taxes: TaxService): FeatureRoutes {
  const op = {
    list: defineOperation({
      method: "GET",
      path: "/tax-rates",
      summary: "List the store's tax rates",
      description: "Every rate, by country then region (a store has at most a few hundred).",
      response: { 200: Envelope(Type.Array(TaxRateResource)) },
      run: async ({ caller }) => ({ data: await taxes.list(caller.store) }),
    }),
    create: defineOperation({
      method: "POST",
      path: "/tax-rates",
      summary: "Add a tax rate",
      description:
        "A country's rate (no `region`) or a region's, paid on top of the country's. One rate per place (409). Orders placed after pay it.",
      body: CreateTaxRateBody,
      response: { 201: Envelope(TaxRateResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({ data: await taxes.create(caller.store, body) }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/tax-rates/:id",
      params: TaxRateIdParam,
      summary: "Change a tax rate",
      description: "Its title or rate, for orders placed after; orders placed before keep their tax.",
      body: UpdateTaxRateBody,
      response: { 200: Envelope(TaxRateResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params, body }) => ({ data: await taxes.update(caller.store, params.id, body) }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/tax-rates/:id",
      params: TaxRateIdParam,
      summary: "Delete a tax rate",
      description: "Orders placed before keep their tax.",
      response: { 200: Envelope(TaxRateResource, "The deleted tax rate") },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await taxes.remove(caller.store, params.id) }),
    }),
  };
  return {
    tags: {
      "Dashboard: taxes": "Tax rates per country and region; whether prices include tax is a store setting.",
    },
    store(app) {
      const tags = ["Dashboard: taxes"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListTaxRates",
        scope: Scope.manage_store,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateTaxRate",
        scope: Scope.manage_store,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateTaxRate",
        scope: Scope.manage_store,
        tags,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteTaxRate",
        scope: Scope.manage_store,
        tags,
      });
    },
  };
}
