import Type, { type TSchema } from "typebox";
import type { EventDataKind } from "./events.ts";
import {
  AddressFields,
  Currency,
  METADATA_LIMITS,
  MetadataKey,
  MetadataValue,
  Money,
  Phone,
  Rate,
  StoreSlug,
  Timestamp,
} from "./fields.ts";
import { COUNTRY_CODES } from "./locale.ts";
import {
  ActorKindSchema,
  CollectionKindSchema,
  CollectionMatchSchema,
  CollectionRuleFieldSchema,
  DiscountAllocationSchema,
  DiscountKindSchema,
  DiscountStatusSchema,
  FinancialStatusSchema,
  InventoryQuantityNameSchema,
  InventoryReasonSchema,
  OrderStatusSchema,
  ProductStatusSchema,
  ReturnReasonSchema,
  ReturnStatusSchema,
  RuleRelationSchema,
} from "./statuses.ts";

/**
 * Public id and credential prefixes: one per kind, so an id or a leaked secret says what it is
 * (secret scanners key on these). Ids are `<prefix>_` and `idLength` base62 characters.
 */
export const ID_PREFIX = {
  account: "acct",
  store: "store",
  product: "prod",
  variant: "var",
  productImage: "img",
  location: "loc",
  inventoryLevel: "ilvl",
  inventoryChange: "ichg",
  collection: "coll",
  discount: "disc",
  taxRate: "txr",
  refund: "rfnd",
  return: "ret",
  orderEdit: "oed",
  customer: "cus",
  order: "ord",
  lineItem: "li",
  event: "evt",
  app: "app",
  installation: "inst",
  grant: "grant",
  subscription: "whsub",
  delivery: "whd",
  listenSession: "whls",
  clientId: "mpc",
  apiKey: "mpk",
  csvImport: "imp",
  invitation: "inv",
  mailMessage: "mail",
  passwordReset: "pwr",
  emailChange: "emc",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Random characters after the prefix: 22 (about 131 bits) for records, 24 for public client/key ids. */
export function idLength(kind: IdKind): number {
  return kind === "clientId" || kind === "apiKey" ? 24 : 22;
}

/** Pattern accepted for an id of `kind` in a path or body; anything else is a 400 before any query. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIX[kind]}_[0-9A-Za-z]{${idLength(kind)}}$`;
}

/** A well-formed id of `kind` for documentation examples (never issued: ids are random). */
export function exampleId(kind: IdKind): string {
  const chars = "7Hc2Qm9XwLp4Rt8VbN3kZs6YdJ5fGa1";
  return `${ID_PREFIX[kind]}_${chars.repeat(2).slice(0, idLength(kind))}`;
}

export function Id(kind: IdKind, description?: string) {
  return Type.String({
    pattern: idPattern(kind),
    maxLength: 64,
    examples: [exampleId(kind)],
    ...(description ? { description } : {}),
  });
}

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

export const CountryCode = Type.Enum(COUNTRY_CODES, {
  type: "string",
  description: "ISO 3166-1 alpha-2 country code.",
  examples: ["SA"],
  "x-hint": "a two-letter country code such as SA or DE",
});

/** A postal address as the APIs return it: absent parts are null. */
export const AddressResource = Type.Object(
  {
    name: Type.String({ description: "Who receives the parcel.", examples: ["Layla Haddad"] }),
    company: Nullable(Type.String()),
    line1: Type.String({ examples: ["King Fahd Road 12"] }),
    line2: Nullable(Type.String()),
    city: Type.String({ examples: ["Riyadh"] }),
    region: Nullable(Type.String({ description: "State, province or region." })),
    postalCode: Nullable(Type.String()),
    country: CountryCode,
    phone: Nullable(Type.String()),
  },
  { title: "Address" },
);

/** A postal address a client sends: name, line1, city and country are required; empty parts may be left out. */
export const AddressInput = Type.Object(
  {
    name: AddressFields.name,
    company: Type.Optional(Nullable(AddressFields.company)),
    line1: AddressFields.line1,
    line2: Type.Optional(Nullable(AddressFields.line2)),
    city: AddressFields.city,
    region: Type.Optional(Nullable(AddressFields.region)),
    postalCode: Type.Optional(Nullable(AddressFields.postalCode)),
    country: CountryCode,
    phone: Type.Optional(Nullable(Phone)),
  },
  { title: "AddressInput", additionalProperties: false },
);

/**
 * The calling app's own metadata on a record. Present on Admin API answers and in the webhook
 * payloads an app receives, and only there: each app sees its own pairs, never another app's.
 */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: "object",
  additionalProperties: { type: "string" },
  description:
    "Your app's own key-value pairs on this record (your ERP id, your shipment id). Only your app sees them: other apps, developer keys and webhook deliveries to other apps never carry them. The merchant sees which apps keep data on a record.",
  examples: [{ erpId: "ERP-88213" }],
});

/**
 * Metadata an app sends on a create or an update: merged into its pairs on the record, a key set
 * to null removed (RFC 7396 merge patch). Bounded per app and record.
 */
export const MetadataInput = Type.Unsafe<Record<string, string | null>>({
  type: "object",
  propertyNames: MetadataKey,
  additionalProperties: Type.Union([MetadataValue, Type.Null()]),
  maxProperties: METADATA_LIMITS.keys,
  description: `Your app's key-value pairs, merged into the ones it keeps on the record; \`null\` removes a key. At most ${METADATA_LIMITS.keys} keys per app and record, keys of 1-${METADATA_LIMITS.keyLength} letters, digits, \`_\`, \`.\`, \`:\` or \`-\`, values of at most ${METADATA_LIMITS.valueLength} characters; more is a 400 \`VALIDATION_FAILED\` naming \`metadata\`.`,
  examples: [{ erpId: "ERP-88213" }],
});

/**
 * The resources as every API family returns them and as webhook events carry them in `data`.
 * Named (`title`), so generated clients get importable types.
 */
export const StoreResource = Type.Object(
  {
    id: Id("store"),
    slug: StoreSlug,
    name: Type.String(),
    currency: Currency,
    contactEmail: Nullable(Type.String({ examples: ["hello@demo-store.example"] })),
    address: Nullable(AddressResource, {
      description: "The store's own address (where parcels leave from).",
    }),
    timeZone: Type.String({
      description: "IANA time zone: the overview's days are counted in it.",
      examples: ["UTC"],
    }),
    orderNumberPrefix: Type.String({
      description: "Written before new orders' numbers in their `name`.",
      examples: ["#"],
    }),
    taxesIncluded: Type.Boolean({
      description:
        "Prices are entered with tax included: an order's tax is found inside them (`taxIncluded`). Otherwise it is added on top (`tax`).",
    }),
    taxShipping: Type.Boolean({ description: "Shipping is taxed at the same rates as the goods." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Store" },
);

export const ProductOptionResource = Type.Object(
  {
    name: Type.String({ examples: ["Size"] }),
    values: Type.Array(Type.String(), { examples: [["S", "M", "L"]] }),
  },
  { title: "ProductOption" },
);

export const ProductVariantResource = Type.Object(
  {
    id: Id("variant"),
    productId: Id("product"),
    title: Type.String({
      description: "Its option values joined by ` / ` (`Default` for a product without options).",
      examples: ["Blue / M"],
    }),
    optionValues: Type.Array(Type.String(), {
      description: "One value per option of the product, in the options' order.",
      examples: [["Blue", "M"]],
    }),
    sku: Nullable(Type.String({ examples: ["SHIRT-LIN-BLU-M"] }), {
      description: "Unique within the store when set.",
    }),
    barcode: Nullable(Type.String({ examples: ["4006381333931"] })),
    price: Money,
    compareAtPrice: Nullable(Money, { description: "The price before a reduction, shown struck through." }),
    weightGrams: Nullable(Type.Integer({ examples: [240] })),
    tracked: Type.Boolean({
      description: "Whether its stock is counted; an untracked variant can always be sold.",
    }),
    available: Type.Integer({
      description:
        "What can be sold, summed over every location (0 when not tracked). Per location: the inventory levels.",
      examples: [25],
    }),
    position: Type.Integer({ description: "Its place among the product's variants, from 0." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    metadata: Type.Optional(Metadata),
  },
  { title: "ProductVariant" },
);

export const PriceRangeResource = Type.Object(
  { min: Money, max: Money },
  { title: "PriceRange", description: "The lowest and highest price of the product's variants." },
);

/**
 * The sizes every product image is stored in (WebP, never enlarged, inside a square of this many
 * pixels): the list's thumbnail, a phone's product page, the product page. Declared once: the
 * table's CHECK, the resource and the dashboard's srcset follow from it.
 */
export const IMAGE_SIZES = {
  list: { px: 200, description: "For lists and thumbnails: at most 200 × 200." },
  phone: { px: 640, description: "For a phone's product page: at most 640 × 640." },
  page: { px: 1200, description: "For the product page: at most 1200 × 1200." },
} as const satisfies Record<string, { px: number; description: string }>;
export type ImageSize = keyof typeof IMAGE_SIZES;
export const IMAGE_SIZE_NAMES = Object.keys(IMAGE_SIZES) as ImageSize[];
/** Alt text: what the image shows, for those who cannot see it. */
export const IMAGE_ALT_MAX = 512;
/** Images on one product (a variant's images count in its product's). */
export const MAX_IMAGES_PER_PRODUCT = 50;

const imageFile = (size: ImageSize) =>
  Type.Object(
    {
      url: Type.String({
        format: "uri",
        description: "Public, long-lived (cached a year, with an ETag): the image never changes at this URL.",
        examples: [
          `https://shop.example.com/api/v1/images/store_7Hc2Qm9XwLp4Rt8VbN3kZs/img_7Hc2Qm9XwLp4Rt8VbN3kZs/${size}.webp`,
        ],
      }),
      width: Type.Integer({ examples: [IMAGE_SIZES[size].px] }),
      height: Type.Integer({ examples: [Math.round(IMAGE_SIZES[size].px * 0.75)] }),
    },
    { description: IMAGE_SIZES[size].description },
  );

export const ProductImageResource = Type.Object(
  {
    id: Id("productImage"),
    productId: Id("product"),
    variantId: Nullable(Id("variant"), {
      description: "The variant it shows (its colour, say); null for the product as a whole.",
    }),
    position: Type.Integer({
      description: "Its place among the product's images, from 0; the first is the product's main image.",
    }),
    alt: Type.String({
      maxLength: IMAGE_ALT_MAX,
      description: "What it shows, for screen readers (may be empty).",
    }),
    width: Type.Integer({ description: "The stored image's width (its largest size)." }),
    height: Type.Integer({ description: "The stored image's height (its largest size)." }),
    src: Type.String({ format: "uri", description: "Its largest size's URL (`sizes.page.url`)." }),
    sizes: Type.Object(
      { list: imageFile("list"), phone: imageFile("phone"), page: imageFile("page") },
      { description: "The WebP sizes it is served in, for `srcset`." },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "ProductImage" },
);

export const ProductResource = Type.Object(
  {
    id: Id("product"),
    title: Type.String(),
    description: Type.String(),
    vendor: Type.String({ examples: ["Nordic Linen Co."] }),
    productType: Type.String({ examples: ["Shirts"] }),
    tags: Type.Array(Type.String()),
    status: ProductStatusSchema,
    options: Type.Array(ProductOptionResource, {
      description: "At most 3, in order; empty for a product without options (it has one variant).",
    }),
    variants: Type.Array(ProductVariantResource, { description: "At least one, at most 2,048, in order." }),
    images: Type.Array(ProductImageResource, {
      description: "In order, the main image first; at most 50.",
    }),
    priceRange: PriceRangeResource,
    currency: Type.String({ examples: ["USD"] }),
    totalAvailable: Type.Integer({
      description: "What can be sold: available summed over its tracked variants and every location.",
      examples: [25],
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    metadata: Type.Optional(Metadata),
  },
  { title: "Product" },
);

export const LocationResource = Type.Object(
  {
    id: Id("location"),
    name: Type.String({ examples: ["New Jersey warehouse"] }),
    address: Nullable(AddressResource),
    isActive: Type.Boolean({ description: "An inactive location keeps its history but takes no orders." }),
    fulfilsOnlineOrders: Type.Boolean({
      description:
        "Orders placed without a location commit stock at the first active location that fulfils online orders and has every line.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Location" },
);

export const InventoryLevelResource = Type.Object(
  {
    id: Id("inventoryLevel"),
    variantId: Id("variant"),
    productId: Id("product"),
    locationId: Id("location"),
    available: Type.Integer({ description: "Can be sold.", examples: [20] }),
    committed: Type.Integer({ description: "Held by unfulfilled orders.", examples: [3] }),
    unavailable: Type.Integer({
      description: "On the shelf, not for sale (damaged, quality control).",
      examples: [2],
    }),
    onHand: Type.Integer({ description: "available + committed + unavailable.", examples: [25] }),
    updatedAt: Timestamp,
  },
  { title: "InventoryLevel" },
);

export const InventoryActorResource = Type.Object(
  {
    kind: ActorKindSchema,
    id: Nullable(Type.String(), { description: "The account, app or key pair; null for the platform." }),
  },
  { title: "InventoryActor" },
);

export const InventoryChangeResource = Type.Object(
  {
    id: Id("inventoryChange"),
    variantId: Id("variant"),
    locationId: Id("location"),
    quantity: InventoryQuantityNameSchema,
    delta: Type.Integer({ examples: [-2] }),
    quantityAfter: Type.Integer({ examples: [18] }),
    reason: InventoryReasonSchema,
    note: Nullable(Type.String()),
    actor: InventoryActorResource,
    orderId: Nullable(Type.String(), {
      description: "The order that caused it (placed, shipped, cancelled).",
    }),
    createdAt: Timestamp,
  },
  { title: "InventoryChange" },
);

export const InventoryLevelUpdatedData = Type.Object(
  {
    ...InventoryLevelResource.properties,
    changes: Type.Array(InventoryChangeResource, { description: "What this write changed at this level." }),
  },
  { title: "InventoryLevelUpdate" },
);

export const CollectionRuleResource = Type.Object(
  {
    field: CollectionRuleFieldSchema,
    relation: RuleRelationSchema,
    value: Type.String({ examples: ["summer"] }),
  },
  { title: "CollectionRule" },
);

export const CollectionResource = Type.Object(
  {
    id: Id("collection"),
    title: Type.String({ examples: ["Summer shirts"] }),
    description: Type.String(),
    kind: CollectionKindSchema,
    match: Nullable(CollectionMatchSchema, {
      description: "For an automatic collection: whether all rules or any must hold.",
    }),
    rules: Type.Array(CollectionRuleResource, {
      description: "An automatic collection's rules; empty for a manual one.",
    }),
    productsCount: Type.Integer({ description: "How many products it holds now." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Collection" },
);

export const DiscountResource = Type.Object(
  {
    id: Id("discount"),
    code: Type.String({
      examples: ["SUMMER10"],
      description: "What customers type; matched without regard to case.",
    }),
    kind: DiscountKindSchema,
    percentage: Nullable(Rate, { description: "A percentage discount's rate; null otherwise." }),
    value: Nullable(Money, {
      description: "A fixed amount's value in the store's currency; null otherwise.",
    }),
    allocation: DiscountAllocationSchema,
    productIds: Type.Array(Type.String(), {
      description: "The products it applies to (or in `collectionIds`).",
    }),
    collectionIds: Type.Array(Type.String(), {
      description: "The collections whose products it applies to. Both lists empty: every product.",
    }),
    minimumSubtotal: Nullable(Money, {
      description: "The smallest subtotal of the lines it applies to that it needs; null: none.",
    }),
    minimumQuantity: Nullable(Type.Integer(), {
      description: "The fewest items among the lines it applies to that it needs; null: none.",
    }),
    startsAt: Timestamp,
    endsAt: Nullable(Timestamp, { description: "Refused from then on; null: never ends." }),
    usageLimit: Nullable(Type.Integer(), {
      description: "How many orders may use it in all; null: no limit.",
    }),
    oncePerCustomer: Type.Boolean({ description: "Each customer may use it once." }),
    combinable: Type.Boolean({
      description: "May be used with other codes on one order (each of them must be combinable).",
    }),
    status: DiscountStatusSchema,
    timesUsed: Type.Integer({ description: "How many orders have used it." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Discount" },
);

export const TaxRateResource = Type.Object(
  {
    id: Id("taxRate"),
    country: Type.String({ examples: ["US"], description: "ISO 3166-1 alpha-2." }),
    region: Nullable(Type.String({ examples: ["NY"] }), {
      description: "A region as addresses write it; null: the whole country.",
    }),
    title: Type.String({ examples: ["NY State Tax"] }),
    rate: Rate,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    title: "TaxRate",
    description:
      "What an order shipping to this place pays: the country's rate and its region's, each its own tax line.",
  },
);

const RefundAmount = Type.String({
  description: "Decimal string in the order's currency.",
  examples: ["18.00"],
});

export const RefundLineResource = Type.Object(
  {
    lineItemId: Type.String(),
    quantity: Type.Integer({ minimum: 1 }),
    subtotal: { ...RefundAmount, description: "The units' price × quantity." },
    discount: { ...RefundAmount, description: "Their share of the discounts the line had." },
    tax: { ...RefundAmount, description: "Their share of the line's tax." },
    amount: {
      ...RefundAmount,
      description: "What is returned for them: subtotal − discount, + tax when it was added to the price.",
    },
    restock: Type.Boolean({ description: "The units go back into stock at `locationId`." }),
  },
  { title: "RefundLine" },
);

/** The fields a refund and its calculation share. */
const refundFields = {
  orderId: Id("order"),
  customerId: Id("customer", "The order's customer."),
  currency: Type.String(),
  lineItems: Type.Array(RefundLineResource),
  shipping: { ...RefundAmount, description: "Shipping returned (its tax included)." },
  tax: { ...RefundAmount, description: "The tax in `amount` (added or included)." },
  amount: { ...RefundAmount, description: "What is returned in all." },
  locationId: Nullable(Type.String(), { description: "Where the restocked units go; null: none restocked." }),
};

export const RefundCalculationResource = Type.Object(
  {
    ...refundFields,
    refundable: {
      ...RefundAmount,
      description: "What the order could still return in all, before this refund (its net).",
    },
  },
  { title: "RefundCalculation", description: "A suggested refund: nothing is recorded." },
);

export const RefundResource = Type.Object(
  {
    id: Id("refund"),
    ...refundFields,
    note: Type.String(),
    createdAt: Timestamp,
  },
  {
    title: "Refund",
    description:
      "Money the merchant's payment provider returned for lines of an order (and its shipping): a record, it moves no money itself.",
  },
);

export const ReturnResource = Type.Object(
  {
    id: Id("return"),
    orderId: Id("order"),
    customerId: Id("customer", "The order's customer."),
    status: ReturnStatusSchema,
    lineItems: Type.Array(
      Type.Object({
        lineItemId: Type.String(),
        quantity: Type.Integer({ minimum: 1 }),
        reason: ReturnReasonSchema,
      }),
    ),
    note: Type.String(),
    locationId: Nullable(Type.String(), {
      description: "Where the received units went back into stock; null: not restocked.",
    }),
    refundId: Nullable(Type.String(), {
      description: "The refund that returned the money, when closing it made one.",
    }),
    requestedAt: Timestamp,
    approvedAt: Nullable(Timestamp),
    declinedAt: Nullable(Timestamp),
    receivedAt: Nullable(Timestamp),
    closedAt: Nullable(Timestamp),
    updatedAt: Timestamp,
  },
  { title: "Return", description: "Units of a shipped order coming back, each with its reason." },
);

export const CustomerResource = Type.Object(
  {
    id: Id("customer"),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    phone: Type.Union([Type.String(), Type.Null()]),
    addresses: Type.Array(AddressResource, {
      description: "The customer's addresses; the first is their default shipping address.",
    }),
    defaultAddress: Nullable(AddressResource, {
      description:
        "The default shipping address (the first of `addresses`): what a new order ships to unless told otherwise.",
    }),
    note: Type.String(),
    tags: Type.Array(Type.String()),
    taxExempt: Type.Boolean({ description: "Orders for this customer carry no tax." }),
    ordersCount: Type.Integer({
      minimum: 0,
      description:
        "How many orders the customer has (any status). It changes with their orders, not with `updatedAt`: follow the order events to keep it.",
    }),
    amountSpent: Type.String({
      description:
        "What the customer paid for their orders, less what was refunded to them: a decimal string in the store's currency. It changes with their orders, not with `updatedAt`.",
      examples: ["129.90"],
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    anonymizedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the customer was deleted while they had orders. Their personal data was erased then, everywhere the platform kept it: `email` is `deleted-<id>@anonymized.invalid`, `firstName` and `lastName` read `Deleted customer`, `phone` is null, `addresses`, `tags` and every app's `metadata` are empty, `note` is empty; so are the payloads of their earlier events and the bodies of their webhook deliveries. Their orders keep amounts, lines, status and carrier; their shipping address keeps only city, region, postal code and country.",
    }),
    metadata: Type.Optional(Metadata),
  },
  { title: "Customer" },
);

const Amount = Type.String({ description: "Decimal string in the order's currency.", examples: ["39.98"] });

export const TaxLineResource = Type.Object(
  {
    title: Type.String({ examples: ["NY State Tax"] }),
    rate: { ...Rate, description: "The rate, a percentage." },
    amount: Amount,
  },
  { title: "TaxLine" },
);

export const DiscountAllocationResource = Type.Object(
  {
    application: Type.Integer({
      minimum: 0,
      description: "Which of the order's `discountApplications` (its index) this share is of.",
    }),
    amount: Amount,
  },
  { title: "DiscountAllocation" },
);

export const DiscountApplicationResource = Type.Object(
  {
    discountId: Nullable(Type.String(), { description: "The discount code's id; null once it is deleted." }),
    code: Type.String({ examples: ["SUMMER10"] }),
    kind: DiscountKindSchema,
    percentage: Nullable(Rate, { description: "A percentage discount's rate; null otherwise." }),
    value: Nullable(Amount, { description: "A fixed amount's value; null otherwise." }),
    allocation: DiscountAllocationSchema,
    amount: { ...Amount, description: "What it took from this order in all." },
  },
  {
    title: "DiscountApplication",
    description: "A discount code as it applied when the order was placed, in the order applied.",
  },
);

const Shares = {
  discount: { ...Amount, description: "What discounts took from it." },
  discountAllocations: Type.Array(DiscountAllocationResource),
  tax: { ...Amount, description: "Its tax (added or included, as the order's `taxesIncluded` says)." },
  taxLines: Type.Array(TaxLineResource),
};

export const ShippingLineResource = Type.Object(
  {
    title: Type.String({ examples: ["Standard shipping"] }),
    code: Nullable(Type.String({ examples: ["standard"] })),
    price: Amount,
    ...Shares,
  },
  { title: "ShippingLine" },
);

export const LineItemResource = Type.Object({
  id: Type.String(),
  productId: Type.Union([Type.String(), Type.Null()], { description: "Null once the product is deleted." }),
  variantId: Type.Union([Type.String(), Type.Null()], {
    description: "The variant sold; null once it is deleted (or for a line recorded before variants).",
  }),
  title: Type.String({ description: "The product's title when it was ordered." }),
  variantTitle: Type.Union([Type.String(), Type.Null()], {
    description: "The variant's title when it was ordered (`Default` for a product without options).",
  }),
  sku: Type.Union([Type.String(), Type.Null()]),
  unitPrice: Amount,
  quantity: Type.Integer(),
  total: { ...Amount, description: "unitPrice × quantity, before discounts." },
  ...Shares,
  refundedQuantity: Type.Integer({ minimum: 0, description: "Units refunded so far." }),
});

export const FulfillmentResource = Type.Object(
  {
    carrier: Nullable(Type.String({ examples: ["DHL Express"] })),
    trackingNumber: Nullable(Type.String({ examples: ["1Z999AA10123456784"] })),
    trackingUrl: Nullable(Type.String({ examples: ["https://www.dhl.com/track?id=1Z999AA10123456784"] })),
    shippedAt: Timestamp,
  },
  { title: "Fulfillment" },
);

export const OrderResource = Type.Object(
  {
    id: Id("order"),
    number: Type.Integer({
      description: "Human-facing order number, sequential per store.",
      examples: [1001],
    }),
    name: Type.String({
      description:
        "The number as people read it: the store's order number prefix when it was placed, then the number.",
      examples: ["#1001"],
    }),
    status: OrderStatusSchema,
    customerId: Type.String(),
    currency: Type.String(),
    subtotal: { ...Amount, description: "The lines' prices × quantities." },
    discounts: { ...Amount, description: "What discount codes took, from the lines and the shipping." },
    shipping: { ...Amount, description: "The shipping lines' prices, before their discounts." },
    tax: {
      ...Amount,
      description:
        "Tax added on top of the prices (0 when `taxesIncluded`): subtotal − discounts + shipping + tax = total.",
    },
    taxIncluded: { ...Amount, description: "Tax inside the prices when `taxesIncluded` (0 otherwise)." },
    total: Amount,
    refunded: { ...Amount, description: "What refunds returned in all." },
    net: { ...Amount, description: "total − refunded." },
    received: {
      ...Amount,
      description:
        "Money recorded as received: the total when the order was marked paid, then what settling an edit's difference changed (0 until paid).",
    },
    outstanding: {
      ...Amount,
      description:
        "What the customer still owes (positive) or is owed (negative) after an edit of a paid order: total − received; 0 when nothing is owed either way, and on an unpaid or voided order.",
    },
    taxesIncluded: Type.Boolean({ description: "The prices included tax when the order was placed." }),
    financialStatus: FinancialStatusSchema,
    note: Type.String(),
    tags: Type.Array(Type.String()),
    shippingAddress: Nullable(AddressResource, {
      description:
        "Where the order ships: given when it was placed, or copied from the customer's default address; null when none.",
    }),
    fulfillment: Nullable(FulfillmentResource, {
      description:
        "Set when the order moved to `shipped`: the carrier and tracking given then (each may be null).",
    }),
    lineItems: Type.Array(LineItemResource),
    shippingLines: Type.Array(ShippingLineResource),
    discountApplications: Type.Array(DiscountApplicationResource),
    taxLines: Type.Array(TaxLineResource, {
      description: "The order's tax by rate: its lines' and shipping's.",
    }),
    locationId: Nullable(Type.String(), {
      description:
        "Where the order holds and ships its stock; null when it holds none (untracked goods) or the location was deleted.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    metadata: Type.Optional(Metadata),
  },
  { title: "Order" },
);

const EditLineResource = Type.Object(
  {
    lineItemId: Type.String(),
    variantId: Nullable(Type.String()),
    title: Type.String(),
    variantTitle: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    unitPrice: Amount,
    quantity: Type.Integer({ minimum: 1 }),
    total: { ...Amount, description: "unitPrice × quantity, before discounts." },
  },
  { title: "OrderEditLine" },
);

const EditShippingResource = Type.Object(
  { title: Type.String(), code: Nullable(Type.String()), price: Amount },
  { title: "OrderEditShipping" },
);

/** The fields an edit and its preview share. */
const orderEditFields = {
  orderId: Id("order"),
  customerId: Id("customer", "The order's customer."),
  currency: Type.String(),
  lineItemsBefore: Type.Array(EditLineResource, { description: "The order's lines before the edit." }),
  lineItemsAfter: Type.Array(EditLineResource, {
    description: "Its lines after: a removed line is absent, an added one has a new `lineItemId`.",
  }),
  discountCodesBefore: Type.Array(Type.String()),
  discountCodesAfter: Type.Array(Type.String()),
  shippingLinesBefore: Type.Array(EditShippingResource),
  shippingLinesAfter: Type.Array(EditShippingResource),
  totalBefore: Amount,
  totalAfter: Amount,
  difference: {
    ...Amount,
    description:
      "totalAfter − totalBefore: positive, the customer owes it; negative, it is owed to the customer (a paid order's `outstanding` says the same until the merchant settles it).",
  },
  outstanding: {
    ...Amount,
    description: "The order's `outstanding` after the edit (total − received; 0 on an unpaid order).",
  },
};

export const OrderEditPreviewResource = Type.Object(
  { ...orderEditFields, order: OrderResource },
  {
    title: "OrderEditPreview",
    description: "An edit priced and checked as committing it now would: nothing is recorded.",
  },
);

export const OrderEditResource = Type.Object(
  {
    id: Id("orderEdit"),
    ...orderEditFields,
    note: Type.String({ description: "Why the order was edited (the merchant's or the app's words)." }),
    createdAt: Timestamp,
  },
  {
    title: "OrderEdit",
    description:
      "A committed edit of an order not yet shipped: its lines, discount codes and shipping before and after, and the totals.",
  },
);

export const UninstalledData = Type.Object({
  clientId: Type.String(),
  appName: Type.String(),
  uninstalledAt: Timestamp,
});

export const WebhookDisabledData = Type.Object(
  {
    subscriptionId: Id("subscription"),
    eventName: Type.String({
      description: "The event the disabled subscription receives.",
      examples: ["order.paid"],
    }),
    targetUrl: Type.String({
      description: "Where it was sent.",
      examples: ["https://app.example.com/hooks"],
    }),
    reason: Type.String({
      description:
        "The last error: the receiver's status (`HTTP 410 Gone`, `HTTP 503`) or why no answer came.",
      examples: ["HTTP 503"],
    }),
    failingSince: Type.String({
      format: "date-time",
      examples: ["2026-11-17T10:00:00.000Z"],
      description:
        "The first failure of the unbroken run of failed attempts that ended in the disable (a 410 disables at once: then that attempt, or an earlier failure of the run).",
    }),
    disabledAt: Timestamp,
  },
  { title: "WebhookDisabledData" },
);

export const CustomerRedactData = Type.Object(
  {
    customerId: Id("customer", "The customer the merchant deleted or anonymised."),
    orderIds: Type.Array(Id("order"), {
      description:
        "Every order of the customer. The orders stay in the store with their amounts, lines, status and carrier; their shipping address keeps only city, region, postal code and country, their note and tracking number are erased: erase the customer's details you keep on them. Empty for a customer without orders.",
      examples: [[exampleId("order")]],
    }),
  },
  {
    title: "CustomerRedactData",
    description:
      "No name or e-mail address: the platform has erased them, in the same transaction, from every copy it stored: the customer, their orders, the payloads of their and their orders' events (the event feed), the bodies kept with those events' deliveries (what a redelivery or recover sends), what receivers answered to them, and stored idempotent answers. Find the customer by its id.",
  },
);

export const CustomerDataRequestData = Type.Object(
  {
    customerId: Id("customer", "The customer whose data the merchant asks about."),
    orderIds: Type.Array(Id("order"), {
      description: "Every order of the customer when the request was made.",
      examples: [[exampleId("order")]],
    }),
    requestedAt: Timestamp,
  },
  {
    title: "CustomerDataRequestData",
    description:
      "Report to the merchant what you keep on this customer (read the customer's details with `read_customers` if you need them). The event `id` names the request.",
  },
);

export const ShopRedactData = Type.Object(
  {
    clientId: Type.String({
      description: "Your app's client id.",
      examples: ["mpc_3kTMd9Qx2LwZ7bPq5RvY8nHa"],
    }),
    uninstalledAt: Timestamp,
  },
  {
    title: "ShopRedactData",
    description:
      "The store is `store.slug` of the body: erase what you keep on it (its customers, orders, products and tokens).",
  },
);

/** What each kind of event carries in `data` (events.ts names the kind per event). */
export const EVENT_PAYLOADS: Record<EventDataKind, TSchema> = {
  order: OrderResource,
  product: ProductResource,
  inventoryLevel: InventoryLevelUpdatedData,
  location: LocationResource,
  collection: CollectionResource,
  discount: DiscountResource,
  refund: RefundResource,
  return: ReturnResource,
  orderEdit: OrderEditResource,
  customer: CustomerResource,
  store: StoreResource,
  uninstalled: UninstalledData,
  webhookDisabled: WebhookDisabledData,
  customerRedact: CustomerRedactData,
  customerDataRequest: CustomerDataRequestData,
  shopRedact: ShopRedactData,
};
