import Type, { type Static } from "typebox";
import {
  AppIconColorSchema,
  AppListingStatusSchema,
  AppName,
  AppUrl,
  ListingDescription,
  ListingTagline,
  SCOPE_NAMES,
  ScopeSchema,
  SearchText,
  SupportEmail,
} from "../../contracts/index.ts";
import type { AppRow } from "../../db/schema.ts";
import { Body, CursorQuery, Timestamp } from "../../lib/http/schemas.ts";
import { ClientId } from "../apps/apps-schemas.ts";
import type { DirectoryRow, ListingRow } from "./app-listings-repo.ts";

/** What the developer writes; the name and scopes are the app's own and are not part of it. */
const LISTING_FIELDS = {
  tagline: ListingTagline,
  description: ListingDescription,
  appUrl: AppUrl,
  supportEmail: SupportEmail,
  iconColor: AppIconColorSchema,
};

export const PutListingBody = Body(
  { ...LISTING_FIELDS, status: AppListingStatusSchema },
  {
    description:
      "The whole listing. `status: published` puts it in every store's directory at once (the app must declare a privacy endpoint first); `draft` takes it out, or keeps it out.",
  },
);
export type PutListingInput = Static<typeof PutListingBody>;

const AppScopes = Type.Array(ScopeSchema, {
  maxItems: SCOPE_NAMES.length,
  description:
    "The app's registered scopes (the most it may ask a merchant for), the same list the consent page checks every request against. Declared once, on the app: change it there.",
});

export const AppListingResource = Type.Object(
  {
    clientId: ClientId,
    name: {
      ...AppName,
      description: "The app's name (the same the consent page shows); change it on the app.",
    },
    scopes: AppScopes,
    ...LISTING_FIELDS,
    status: AppListingStatusSchema,
    publishedAt: Type.Union([Timestamp, Type.Null()], {
      description: "When it was last published; null while a draft.",
    }),
    updatedAt: Timestamp,
  },
  { title: "AppListing" },
);

export const DirectoryEntryResource = Type.Object(
  {
    clientId: ClientId,
    name: AppName,
    scopes: AppScopes,
    ...LISTING_FIELDS,
    installed: Type.Boolean({
      description:
        "Whether the app is installed in this store now. Either way Install and Open app go to `appUrl` with `store=<slug>` added.",
    }),
    publishedAt: Timestamp,
  },
  { title: "DirectoryEntry" },
);

export const DirectoryQuery = Type.Object(
  {
    limit: CursorQuery.limit,
    cursor: CursorQuery.cursor,
    q: Type.Optional({
      ...SearchText,
      description: "Apps whose name, tagline or description contains this text (any case).",
    }),
  },
  { additionalProperties: false },
);
export type DirectoryQueryInput = Static<typeof DirectoryQuery>;

export function toListingResource(app: AppRow, listing: ListingRow) {
  return {
    clientId: app.client_id,
    name: app.name,
    scopes: app.scopes,
    tagline: listing.tagline,
    description: listing.description,
    appUrl: listing.app_url,
    supportEmail: listing.support_email,
    iconColor: listing.icon_color,
    status: listing.status,
    publishedAt: listing.published_at ? listing.published_at.toISOString() : null,
    updatedAt: listing.updated_at.toISOString(),
  };
}

export function toDirectoryEntry(row: DirectoryRow) {
  return {
    clientId: row.client_id,
    name: row.name,
    scopes: row.scopes,
    tagline: row.tagline,
    description: row.description,
    appUrl: row.app_url,
    supportEmail: row.support_email,
    iconColor: row.icon_color,
    installed: Boolean(row.installed),
    // A published listing always has it (the table's CHECK).
    publishedAt: (row.published_at ?? row.updated_at).toISOString(),
  };
}
