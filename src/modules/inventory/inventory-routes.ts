import Type from "typebox";
import { EVENT, MAX_LOCATIONS, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorMeta, Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import {
  AdjustInventoryBody,
  ChangeListQuery,
  CreateLocationBody,
  InventoryChangeResource,
  InventoryLevelResource,
  LevelListQuery,
  LocationIdParam,
  LocationResource,
  MoveInventoryBody,
  SetInventoryBody,
  UpdateLocationBody,
} from "./inventory-schemas.ts";
import { type InventoryService, stockActorOf } from "./inventory-service.ts";
import type { LocationService } from "./locations-service.ts";

const Page = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta: CursorMeta });

const LEVEL_WRITE = `Emits ${eventName(EVENT.inventoryLevelUpdated)} per level in commit order, and ${eventName(EVENT.productUpdated)} for a product whose sellable total changed.`;

/**
 * Locations and stock (issue 30), each operation declared once: reads need read_inventory, writes
 * write_inventory (an app may be granted them; a key pair too). Every write is recorded with who
 * made it (the merchant, the app, the key pair) and why.
 */
export function inventoryOperations(deps: { inventory: InventoryService; locations: LocationService }) {
  const { inventory, locations } = deps;
  return {
    listLocations: defineOperation({
      method: "GET",
      path: "/locations",
      summary: "List locations",
      description: `Every location of the store (at most ${MAX_LOCATIONS}), oldest first.`,
      response: { 200: Envelope(Type.Array(LocationResource)) },
      run: async ({ caller }) => ({ data: await locations.list(caller.store) }),
    }),
    getLocation: defineOperation({
      method: "GET",
      path: "/locations/:id",
      params: LocationIdParam,
      summary: "Get a location",
      response: { 200: Envelope(LocationResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await locations.get(caller.store, params.id) }),
    }),
    createLocation: defineOperation({
      method: "POST",
      path: "/locations",
      summary: "Add a location",
      description: `Names are unique in the store (any case). Emits ${eventName(EVENT.locationCreated)}.`,
      body: CreateLocationBody,
      response: { 201: Envelope(LocationResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({ data: await locations.create(caller.store, body) }),
    }),
    updateLocation: defineOperation({
      method: "PATCH",
      path: "/locations/:id",
      params: LocationIdParam,
      summary: "Update a location",
      description: `A store keeps one active location; a location holding stock committed to orders is not deactivated (409). Emits ${eventName(EVENT.locationUpdated)} when something changed.`,
      body: UpdateLocationBody,
      response: { 200: Envelope(LocationResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await locations.update(caller.store, params.id, body),
      }),
    }),
    deleteLocation: defineOperation({
      method: "DELETE",
      path: "/locations/:id",
      params: LocationIdParam,
      summary: "Delete a location",
      description: `Only one that holds no stock, and not the last active one (409: move its stock first). Emits ${eventName(EVENT.locationDeleted)}.`,
      response: { 200: Envelope(LocationResource, "The deleted location") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params }) => ({ data: await locations.remove(caller.store, params.id) }),
    }),
    listLevels: defineOperation({
      method: "GET",
      path: "/inventory-levels",
      summary: "List stock levels",
      description:
        "Stock per variant and location: `available`, `committed` (held by unfulfilled orders), `unavailable` and `onHand` (their sum). Filter by product, variant or location; ordered by variant, then location.",
      querystring: LevelListQuery,
      response: { 200: Page(InventoryLevelResource) },
      run: async ({ caller, query }) => {
        const page = await inventory.levels(
          caller.store,
          { productId: query.productId, variantId: query.variantId, locationId: query.locationId },
          query.cursor,
          query.limit,
        );
        return { data: page.items, meta: { ...page.meta, limit: query.limit } };
      },
    }),
    listChanges: defineOperation({
      method: "GET",
      path: "/inventory-changes",
      summary: "List stock changes",
      description:
        "The store's stock history (of a variant, at a location, or both), newest first: each change with its quantity, delta, value after, reason, note, who made it and the order that caused it.",
      querystring: ChangeListQuery,
      response: { 200: Page(InventoryChangeResource) },
      run: async ({ caller, query }) => {
        const page = await inventory.changes(
          caller.store,
          { variantId: query.variantId, locationId: query.locationId },
          query.cursor,
          query.limit,
        );
        return { data: page.items, meta: { ...page.meta, limit: query.limit } };
      },
    }),
    adjust: defineOperation({
      method: "POST",
      path: "/inventory-levels/adjust",
      summary: "Adjust stock",
      description: `Adds each \`delta\` to a level's \`available\` (or \`unavailable\`), all or none; a quantity that would fall below zero is a 409 naming what is there. ${LEVEL_WRITE}`,
      body: AdjustInventoryBody,
      response: { 201: Envelope(Type.Array(InventoryLevelResource), "The levels after") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, body }) => ({
        data: await inventory.adjust(caller.store, body, stockActorOf(caller.principal)),
      }),
    }),
    set: defineOperation({
      method: "POST",
      path: "/inventory-levels/set",
      summary: "Set stock",
      description: `Sets each quantity to \`value\` when it is still \`changeFromQuantity\` (compare-and-set: otherwise 409 INVENTORY_STALE with the current value, and nothing is written). ${LEVEL_WRITE}`,
      body: SetInventoryBody,
      response: { 201: Envelope(Type.Array(InventoryLevelResource), "The levels after") },
      errors: ["NOT_FOUND", "CONFLICT", "INVENTORY_STALE"],
      run: async ({ caller, body }) => ({
        data: await inventory.set(caller.store, body, stockActorOf(caller.principal)),
      }),
    }),
    move: defineOperation({
      method: "POST",
      path: "/inventory-levels/move",
      summary: "Move stock between locations",
      description: `Takes \`quantity\` from what is available at one location and makes it available at the other, in one transaction (409 when short). ${LEVEL_WRITE}`,
      body: MoveInventoryBody,
      response: { 201: Envelope(Type.Array(InventoryLevelResource), "The two levels after") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, body }) => ({
        data: await inventory.move(caller.store, body, stockActorOf(caller.principal)),
      }),
    }),
  };
}

/** The location and stock routes of every family (platform.ts lists them). */
export function inventoryRoutes(deps: {
  inventory: InventoryService;
  locations: LocationService;
}): FeatureRoutes {
  const op = inventoryOperations(deps);
  return {
    tags: {
      "Dashboard: inventory": "Locations and stock at each.",
      "Admin API: inventory":
        "Bearer token with `read_inventory` / `write_inventory`: locations, stock per variant and location, its history.",
      "Developer API: inventory": "`read_inventory` to read; `write_inventory` to write stock and locations.",
    },
    store(app) {
      const tags = ["Dashboard: inventory"];
      mount(app, DASHBOARD, op.listLocations, {
        operationId: "dashboardListLocations",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.getLocation, {
        operationId: "dashboardGetLocation",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.createLocation, {
        operationId: "dashboardCreateLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.updateLocation, {
        operationId: "dashboardUpdateLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.deleteLocation, {
        operationId: "dashboardDeleteLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.listLevels, {
        operationId: "dashboardListInventoryLevels",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.listChanges, {
        operationId: "dashboardListInventoryChanges",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.adjust, {
        operationId: "dashboardAdjustInventory",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.set, {
        operationId: "dashboardSetInventory",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DASHBOARD, op.move, {
        operationId: "dashboardMoveInventory",
        scope: Scope.write_inventory,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: inventory"];
      mount(app, ADMIN_API, op.listLocations, {
        operationId: "adminListLocations",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.getLocation, {
        operationId: "adminGetLocation",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.createLocation, {
        operationId: "adminCreateLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.updateLocation, {
        operationId: "adminUpdateLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.deleteLocation, {
        operationId: "adminDeleteLocation",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.listLevels, {
        operationId: "adminListInventoryLevels",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.listChanges, {
        operationId: "adminListInventoryChanges",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.adjust, {
        operationId: "adminAdjustInventory",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, ADMIN_API, op.set, { operationId: "adminSetInventory", scope: Scope.write_inventory, tags });
      mount(app, ADMIN_API, op.move, {
        operationId: "adminMoveInventory",
        scope: Scope.write_inventory,
        tags,
      });
    },
    developer(app) {
      const tags = ["Developer API: inventory"];
      mount(app, DEVELOPER_API, op.listLocations, {
        operationId: "developerListLocations",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DEVELOPER_API, op.listLevels, {
        operationId: "developerListInventoryLevels",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DEVELOPER_API, op.listChanges, {
        operationId: "developerListInventoryChanges",
        scope: Scope.read_inventory,
        tags,
      });
      mount(app, DEVELOPER_API, op.adjust, {
        operationId: "developerAdjustInventory",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DEVELOPER_API, op.set, {
        operationId: "developerSetInventory",
        scope: Scope.write_inventory,
        tags,
      });
      mount(app, DEVELOPER_API, op.move, {
        operationId: "developerMoveInventory",
        scope: Scope.write_inventory,
        tags,
      });
    },
  };
}
