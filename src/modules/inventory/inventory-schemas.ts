import Type, { type Static } from "typebox";
import {
  AddressInput,
  InventoryChangeResource,
  InventoryDelta,
  InventoryLevelResource,
  InventoryNote,
  InventoryQuantity,
  LocationName,
  LocationResource,
  PAGE_SIZE,
  WritableInventoryQuantitySchema,
  WritableInventoryReasonSchema,
} from "../../contracts/index.ts";
import { Body, Id, PageLimit } from "../../lib/http/schemas.ts";

export { InventoryChangeResource, InventoryLevelResource, LocationResource };

/** At most this many levels in one adjust or set (all or none). */
export const MAX_INVENTORY_WRITES = 100;

const locationFields = {
  name: LocationName,
  address: Type.Union([AddressInput, Type.Null()], { description: "Where it is; null when not given." }),
  isActive: Type.Boolean({ description: "Inactive: keeps its history, takes no orders (default true)." }),
  fulfilsOnlineOrders: Type.Boolean({
    description: "Orders placed without a location may take their stock here (default true).",
  }),
};
export const CreateLocationBody = Body({
  name: locationFields.name,
  address: Type.Optional(locationFields.address),
  isActive: Type.Optional(locationFields.isActive),
  fulfilsOnlineOrders: Type.Optional(locationFields.fulfilsOnlineOrders),
});
export const UpdateLocationBody = Type.Object(
  {
    name: Type.Optional(locationFields.name),
    address: Type.Optional(locationFields.address),
    isActive: Type.Optional(locationFields.isActive),
    fulfilsOnlineOrders: Type.Optional(locationFields.fulfilsOnlineOrders),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const LocationIdParam = { id: Id("location") };

export const AdjustInventoryBody = Body({
  reason: WritableInventoryReasonSchema,
  note: Type.Optional(InventoryNote),
  changes: Type.Array(
    Type.Object(
      {
        variantId: Id("variant"),
        locationId: Id("location"),
        quantity: Type.Optional(WritableInventoryQuantitySchema),
        delta: InventoryDelta,
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: MAX_INVENTORY_WRITES, description: "Each level's change; all apply or none." },
  ),
});

export const SetInventoryBody = Body({
  reason: WritableInventoryReasonSchema,
  note: Type.Optional(InventoryNote),
  quantities: Type.Array(
    Type.Object(
      {
        variantId: Id("variant"),
        locationId: Id("location"),
        quantity: Type.Optional(WritableInventoryQuantitySchema),
        value: InventoryQuantity,
        changeFromQuantity: Type.Union([InventoryQuantity, Type.Null()], {
          description:
            "What you read the quantity to be: a different current value answers 409 INVENTORY_STALE with it, and nothing is written. `null` sets without comparing.",
        }),
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: MAX_INVENTORY_WRITES, description: "All are set or none." },
  ),
});

export const MoveInventoryBody = Body({
  variantId: Id("variant"),
  fromLocationId: Id("location"),
  toLocationId: Id("location"),
  quantity: { ...InventoryQuantity, minimum: 1 },
  note: Type.Optional(InventoryNote),
});

const Cursor = Type.Optional(
  Type.String({ maxLength: 512, description: "Opaque cursor from `meta.nextCursor` of the previous page." }),
);
export const LevelListQuery = Type.Object(
  {
    limit: PageLimit(PAGE_SIZE.cursor),
    cursor: Cursor,
    productId: Type.Optional(Id("product")),
    variantId: Type.Optional(Id("variant")),
    locationId: Type.Optional(Id("location")),
  },
  { additionalProperties: false },
);
export const ChangeListQuery = Type.Object(
  {
    limit: PageLimit(PAGE_SIZE.cursor),
    cursor: Cursor,
    variantId: Type.Optional(Id("variant")),
    locationId: Type.Optional(Id("location")),
  },
  { additionalProperties: false },
);

export type LocationBody = Static<typeof CreateLocationBody>;
