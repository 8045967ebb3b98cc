import Type from "typebox";
import { DATE_TIME_MAX_LENGTH, EARLIEST_INSTANT, LATEST_INSTANT } from "./date-time.ts";

/**
 * The limits and patterns of every field a client sends, declared once: the route schemas, the
 * dashboard's forms and the documents all use these. Messages for people come from `hint`
 * (a pattern is never shown to a merchant).
 */

export const Timestamp = Type.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });

/**
 * A date-time a client sends (a filter, an expiry). The validator's `date-time` format refuses
 * instants outside years 1-9999 in UTC (date-time.ts), wherever the format appears; this adds the
 * length bound and the words.
 */
export function DateTimeInput(description: string) {
  return Type.String({
    format: "date-time",
    maxLength: DATE_TIME_MAX_LENGTH,
    description: `${description} RFC 3339, from ${EARLIEST_INSTANT} to ${LATEST_INSTANT} once converted to UTC.`,
    examples: ["2026-11-22T10:00:00Z"],
    "x-hint": "a date and time such as 2026-11-22T10:00:00Z, in the years 1 to 9999",
  });
}

/** Amounts are decimal strings: at most 15 integer digits (kept well inside 2^53 minor units). */
export const DECIMAL_PATTERN = "^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,3})?$";

export const Money = Type.String({
  pattern: DECIMAL_PATTERN,
  maxLength: 20,
  description: "Decimal string in the store's currency, with no more decimals than the currency has.",
  examples: ["19.99"],
  "x-hint": "an amount such as 19.99 (digits, a dot and at most the currency's decimals)",
});

/** A percentage with up to four decimals, 0 to 100 ("8.875"): kept exactly as parts per million. */
export const RATE_PATTERN = "^(100(\\.0{1,4})?|[1-9]?[0-9](\\.[0-9]{1,4})?)$";
export const Rate = Type.String({
  pattern: RATE_PATTERN,
  maxLength: 8,
  description: "A percentage from 0 to 100 with at most four decimals.",
  examples: ["8.875"],
  "x-hint": "a percentage such as 8.875 (0 to 100, at most four decimals)",
});

export const Currency = Type.String({
  pattern: "^[A-Z]{3}$",
  maxLength: 3,
  description: "ISO 4217 currency code of the store; every price in the store is in it.",
  examples: ["USD", "SAR"],
  "x-hint": "a three-letter currency code such as USD",
});

export const StoreSlug = Type.String({
  pattern: "^[a-z0-9](?:[a-z0-9-]{1,46}[a-z0-9])$",
  minLength: 3,
  maxLength: 48,
  description: "The store's unique slug: 3-48 lowercase letters, digits and inner hyphens.",
  examples: ["demo-store"],
  "x-hint": "3 to 48 lowercase letters, digits and hyphens, starting and ending with a letter or digit",
});

export const StoreName = Type.String({ minLength: 1, maxLength: 100, examples: ["Demo Store"] });

export const Email = Type.String({
  format: "email",
  maxLength: 254,
  examples: ["merchant@example.com"],
  "x-hint": "an e-mail address such as name@example.com",
});

/** What a password must be, in words: the dashboard's forms show it beside the field. */
export const PASSWORD_RULE = "At least 10 characters.";
export const Password = Type.String({ minLength: 10, maxLength: 200, description: PASSWORD_RULE });

export const PersonName = Type.String({ minLength: 1, maxLength: 100, examples: ["Sara Merchant"] });
export const FirstName = Type.String({ minLength: 1, maxLength: 100, examples: ["Layla"] });
export const LastName = Type.String({ maxLength: 100, examples: ["Haddad"] });

export const Phone = Type.String({
  pattern: "^\\+?[0-9 ()-]{4,30}$",
  maxLength: 32,
  examples: ["+966 50 123 4567"],
  "x-hint": "a phone number: digits, spaces, brackets and hyphens, optionally starting with +",
});

export const ProductTitle = Type.String({ minLength: 1, maxLength: 255, examples: ["Linen shirt"] });
export const ProductDescription = Type.String({
  maxLength: 10_000,
  examples: ["Breathable, pre-washed linen."],
});
export const Sku = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^\\S(.*\\S)?$",
  "x-hint": "no spaces at the start or end",
});
export const Stock = Type.Integer({ minimum: 0, maximum: 1_000_000_000, examples: [25] });

/** Options and variants (issue 30): a product has at most 3 options and 2,048 variants (Shopify's bounds). */
export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 250;
export const MAX_VARIANTS = 2048;
export const OptionName = Type.String({
  minLength: 1,
  maxLength: 60,
  pattern: "^\\S(.*\\S)?$",
  examples: ["Size"],
  "x-hint": "1 to 60 characters, no spaces at the start or end",
});
export const OptionValue = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^\\S(.*\\S)?$",
  examples: ["M"],
  "x-hint": "1 to 100 characters, no spaces at the start or end",
});
export const Vendor = Type.String({ maxLength: 255, examples: ["Nordic Linen Co."] });
export const ProductType = Type.String({ maxLength: 255, examples: ["Shirts"] });
export const Barcode = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^\\S(.*\\S)?$",
  examples: ["4006381333931"],
  "x-hint": "no spaces at the start or end",
});
export const WeightGrams = Type.Integer({ minimum: 0, maximum: 1_000_000, examples: [240] });
/** A stock quantity as written (a set), and a change to one (an adjustment). */
export const InventoryQuantity = Type.Integer({ minimum: 0, maximum: 1_000_000_000, examples: [25] });
export const InventoryDelta = Type.Integer({
  minimum: -1_000_000_000,
  maximum: 1_000_000_000,
  examples: [-2],
});
export const InventoryNote = Type.String({ maxLength: 500, examples: ["Recount after the stocktake"] });
export const LocationName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^\\S(.*\\S)?$",
  examples: ["New Jersey warehouse"],
  "x-hint": "1 to 100 characters, no spaces at the start or end",
});
export const MAX_LOCATIONS = 50;
export const CollectionTitle = Type.String({ minLength: 1, maxLength: 255, examples: ["Summer shirts"] });
export const MAX_COLLECTION_RULES = 20;
export const MAX_COLLECTION_PRODUCTS = 5000;

export const Quantity = Type.Integer({ minimum: 1, maximum: 10_000, examples: [2] });
export const MAX_LINE_ITEMS = 100;

/** Discount codes and an order's money (issue 31). */
export const DiscountCode = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$",
  examples: ["SUMMER10"],
  description: "Letters, digits, `-` and `_`; matched without regard to case.",
  "x-hint": "letters, digits, - and _ (such as SUMMER10)",
});
/** Products, and collections, a discount may name. */
export const MAX_DISCOUNT_TARGETS = 100;
/** Discount codes on one order. */
export const MAX_ORDER_DISCOUNT_CODES = 5;
export const MAX_SHIPPING_LINES = 5;
export const ShippingTitle = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "\\S",
  examples: ["Standard shipping"],
});
export const ShippingCode = Type.String({ minLength: 1, maxLength: 100, examples: ["standard"] });
export const TaxTitle = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "\\S",
  examples: ["NY State Tax"],
});
export const TaxRegion = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "\\S",
  examples: ["NY"],
  description: "As addresses write the region (matched without regard to case).",
});
export const MAX_TAX_RATES = 500;
export const OrderNote = Type.String({ maxLength: 2000 });

export const AppName = Type.String({ minLength: 1, maxLength: 100, examples: ["Inventory Sync"] });
/**
 * Redirect URIs: https, or plain http on the loopback interface only (RFC 8252 section 7.3), so an
 * app under development on its own machine (`http://localhost:8080/oauth/callback`) can be
 * installed; the code never leaves the machine that asked for it.
 */
export const RedirectUri = Type.String({
  format: "uri",
  pattern: "^(https://[^\\s#]+|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?(/[^\\s#]*)?)$",
  maxLength: 2000,
  description:
    "An https URL without a fragment, or an http URL on localhost, 127.0.0.1 or [::1] (for development). Compared string for string at authorization.",
  examples: ["https://app.example.com/oauth/callback"],
  "x-hint": "an https:// address (or http://localhost) without a #fragment",
});
export const MAX_REDIRECT_URIS = 10;

/** An app's listing in the app directory (issue 32, part 4): text only, bounded. */
export const ListingTagline = Type.String({
  minLength: 1,
  maxLength: 120,
  pattern: "\\S",
  description: "One line under the app's name in the directory.",
  examples: ["Keeps stock in step with your warehouse"],
  "x-hint": "1 to 120 characters",
});
export const ListingDescription = Type.String({
  minLength: 1,
  maxLength: 2000,
  pattern: "\\S",
  description: "What the app does for a merchant, shown as plain text (line breaks kept, no markup).",
  examples: ["Syncs stock levels with your warehouse every five minutes."],
  "x-hint": "1 to 2000 characters",
});
/**
 * Where the directory's Install and Open app buttons send the merchant (with `?store=<slug>`):
 * the same rule as a redirect URI (https, or http on the loopback interface for development).
 */
export const AppUrl = Type.String({
  ...RedirectUri,
  description:
    "The app's own address. Install and Open app send the merchant here with `store=<slug>` added to the query; an app not yet installed in that store starts the authorization from here (its scopes, state and PKCE). https, or http on localhost, 127.0.0.1 or [::1] for development; no #fragment.",
  examples: ["https://app.example.com/"],
});
export const SupportEmail = Type.String({
  format: "email",
  maxLength: 254,
  description: "Where merchants write for help with the app.",
  examples: ["support@app.example.com"],
  "x-hint": "an e-mail address such as support@example.com",
});

export const KeyName = Type.String({ minLength: 1, maxLength: 100, examples: ["Nightly catalogue export"] });

export const WebhookTargetUrl = Type.String({
  maxLength: 2000,
  description: "https only; it must not resolve to a loopback, private, link-local or metadata address.",
  examples: ["https://app.example.com/webhooks/orders"],
});

/**
 * Free-text search in lists: matched anywhere in the searched fields, case-insensitively. Three
 * characters at least, the shortest text a trigram index can serve.
 */
/** The shortest search text a list accepts. */
export const SEARCH_MIN_LENGTH = 3;
export const SearchText = Type.String({
  minLength: SEARCH_MIN_LENGTH,
  maxLength: 100,
  pattern: "\\S",
  "x-hint": "at least 3 characters",
});

// ---- The commerce core (issue 20): store settings, addresses, tags, fulfilment, app metadata ----

export const ContactEmail = Type.String({
  format: "email",
  maxLength: 254,
  description: "Where customers and apps reach the store.",
  examples: ["hello@demo-store.example"],
  "x-hint": "an e-mail address such as hello@example.com",
});

export const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9_+/-]+$",
  description: "IANA time zone of the store (`Asia/Riyadh`, `UTC`): the overview's days are counted in it.",
  examples: ["Asia/Riyadh"],
  "x-hint": "a time zone such as Europe/Berlin or UTC",
});

export const OrderNumberPrefix = Type.String({
  maxLength: 10,
  pattern: "^[A-Za-z0-9#_/.-]*$",
  description:
    "Written before each new order's number in its `name` (`#` gives `#1001`, `SO-` gives `SO-1001`); orders keep the prefix they were placed with.",
  examples: ["#"],
  "x-hint": "at most 10 letters, digits or # _ / . -",
});

/** A line of an address; no spaces at the ends (the server trims nothing a person must see). */
function addressLine(minLength: number, maxLength: number, examples: string[]) {
  return Type.String({
    minLength,
    maxLength,
    pattern: minLength > 0 ? "^\\S(.*\\S)?$" : "^(\\S(.*\\S)?)?$",
    examples,
    "x-hint": `${minLength > 0 ? "1" : "0"} to ${maxLength} characters, no spaces at the start or end`,
  });
}
export const AddressFields = {
  name: addressLine(1, 100, ["Layla Haddad"]),
  company: addressLine(0, 100, ["Haddad Trading"]),
  line1: addressLine(1, 200, ["King Fahd Road 12"]),
  line2: addressLine(0, 200, ["Floor 3"]),
  city: addressLine(1, 100, ["Riyadh"]),
  region: addressLine(0, 100, ["Riyadh Province"]),
  postalCode: Type.String({
    maxLength: 16,
    pattern: "^[A-Za-z0-9]([A-Za-z0-9 -]{0,14}[A-Za-z0-9])?$",
    examples: ["12271"],
    "x-hint": "letters, digits, spaces and hyphens (at most 16)",
  }),
};
export const MAX_CUSTOMER_ADDRESSES = 10;

/** A tag on an order or a customer: no commas (a list is often typed as "a, b, c"). */
export const Tag = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: "^[^,\\s]([^,]*[^,\\s])?$",
  examples: ["wholesale"],
  "x-hint": "1 to 40 characters, no commas and no spaces at the start or end",
});
export const MAX_TAGS = 50;
export const Tags = Type.Array(Tag, {
  maxItems: MAX_TAGS,
  uniqueItems: true,
  description: `At most ${MAX_TAGS} distinct tags; the list replaces the record's tags.`,
  examples: [["wholesale", "vip"]],
});
export const CustomerNote = Type.String({ maxLength: 2000, examples: ["Prefers delivery after 5 pm."] });

export const Carrier = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^\\S(.*\\S)?$",
  examples: ["DHL Express"],
  "x-hint": "1 to 100 characters, no spaces at the start or end",
});
export const TrackingNumber = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^\\S(.*\\S)?$",
  examples: ["1Z999AA10123456784"],
  "x-hint": "1 to 100 characters, no spaces at the start or end",
});
export const TrackingUrl = Type.String({
  format: "uri",
  maxLength: 2000,
  pattern: "^https?://[^\\s]+$",
  description: "Where the customer follows the parcel: an http or https address.",
  examples: ["https://www.dhl.com/track?id=1Z999AA10123456784"],
  "x-hint": "a web address starting with https://",
});

/**
 * App metadata (Stripe's `metadata`, Shopify's app-owned metafields): key-value pairs an app keeps
 * on a product, order or customer, such as its ERP id. Each app sees only its own.
 */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;
export const MetadataKey = Type.String({
  minLength: 1,
  maxLength: METADATA_LIMITS.keyLength,
  pattern: `^[A-Za-z0-9_.:-]{1,${METADATA_LIMITS.keyLength}}$`,
  "x-hint": `a key of 1 to ${METADATA_LIMITS.keyLength} letters, digits, _ . : or -`,
});
export const MetadataValue = Type.String({ maxLength: METADATA_LIMITS.valueLength, examples: ["ERP-88213"] });

/** An API version (issue 29): the date it was released. Which are served: `GET /api/versions`. */
export const ApiVersionName = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}$",
  maxLength: 10,
  examples: ["2026-11-28"],
  description: "An API version: its release date, `YYYY-MM-DD` (`GET /api/versions` lists them).",
  "x-hint": "a version's date, YYYY-MM-DD",
});
