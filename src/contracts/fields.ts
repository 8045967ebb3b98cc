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

export const Password = Type.String({
  minLength: 10,
  maxLength: 200,
  description: "At least 10 characters.",
});

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

export const Quantity = Type.Integer({ minimum: 1, maximum: 10_000, examples: [2] });
export const MAX_LINE_ITEMS = 100;
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
export const SearchText = Type.String({
  minLength: 3,
  maxLength: 100,
  pattern: "\\S",
  "x-hint": "at least 3 characters",
});
