import type { paths } from "../generated/api.ts";

/**
 * Resource types of the dashboard, taken from the generated document types (never written by
 * hand): the `data` of an operation's success response.
 */
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { "application/json": { data: infer D } } } }
    ? D
    : R extends { 201: { content: { "application/json": { data: infer D } } } }
      ? D
      : never
  : never;

type Item<T> = T extends Array<infer I> ? I : never;

/** The sort keys a list operation accepts, from its generated query type. */
type SortOf<P extends keyof paths> = paths[P] extends {
  get: { parameters: { query?: infer Q } };
}
  ? NonNullable<NonNullable<Q> extends { sort?: infer S } ? S : never>
  : never;

export type ProductSort = SortOf<"/api/v1/dashboard/stores/{slug}/products">;
export type CustomerSort = SortOf<"/api/v1/dashboard/stores/{slug}/customers">;
export type OrderSort = SortOf<"/api/v1/dashboard/stores/{slug}/orders">;
export type CollectionSort = SortOf<"/api/v1/dashboard/stores/{slug}/collections">;
/** A label for each sort a list offers: every key the API accepts, and only those. */
export type SortLabels<S extends string> = Readonly<Record<S, string>>;

export type Product = Ok<"/api/v1/dashboard/stores/{slug}/products/{id}", "get">;
export type Customer = Ok<"/api/v1/dashboard/stores/{slug}/customers/{id}", "get">;
export type CustomerStats = Ok<"/api/v1/dashboard/stores/{slug}/customers/{id}/stats", "get">;
export type Order = Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}", "get">;
export type Discount = Ok<"/api/v1/dashboard/stores/{slug}/discounts/{id}", "get">;
export type OrderReturn = Item<Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/returns", "get">>;
export type OrderEditPreview = Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/edits/preview", "post">;
export type RefundCalculation = Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/refunds/calculate", "post">;
export type OrderHistoryEntry = Item<Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/history", "get">>;
export type OrderWebhook = Item<Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", "get">>;
export type Overview = Ok<"/api/v1/dashboard/stores/{slug}/overview", "get">;
export type Installation = Item<Ok<"/api/v1/dashboard/stores/{slug}/installations", "get">>;
export type ApiKey = Item<Ok<"/api/v1/dashboard/stores/{slug}/api-keys", "get">>;
export type NewApiKey = Ok<"/api/v1/dashboard/stores/{slug}/api-keys", "post">;
export type AppInfo = Ok<"/api/v1/dashboard/apps/{clientId}", "get">;
export type NewApp = Ok<"/api/v1/dashboard/apps", "post">;
export type NewSecret = Ok<"/api/v1/dashboard/apps/{clientId}/secret", "post">;
export type ChangedApp = Ok<"/api/v1/dashboard/apps/{clientId}", "patch">;
export type ApiVersion = Item<Ok<"/api/versions", "get">>;
export type DeprecatedCall = Item<Ok<"/api/v1/dashboard/apps/{clientId}/deprecated-calls", "get">>;
export type NewPrivacySecret = Ok<"/api/v1/dashboard/apps/{clientId}/privacy-secret", "post">;
export type DataRequests = Ok<"/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", "get">;
export type DataRequestSent = Ok<"/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", "post">;
export type Delivery = Item<Ok<"/api/v1/dashboard/apps/{clientId}/deliveries", "get">>;
/** An app's webhook subscription as its page lists it (the disabled banner and the subscriptions panel). */
export type AppSubscription = Item<Ok<"/api/v1/dashboard/apps/{clientId}/webhooks", "get">>;
export type ListenSession = Item<Ok<"/api/v1/dashboard/apps/{clientId}/listen-sessions", "get">>;
export type StreamedEvent = Item<Ok<"/api/v1/dashboard/apps/{clientId}/listen-sessions/{id}/events", "get">>;
export type WebhookRecovery = Ok<"/api/v1/dashboard/apps/{clientId}/webhooks/recover", "post">;
export type WebhookEnabled = Ok<"/api/v1/dashboard/apps/{clientId}/webhooks/{id}/enable", "post">;
export type Store = Ok<"/api/v1/dashboard/stores/{slug}", "get">;
export type StoreSettingsBody = NonNullable<
  paths["/api/v1/dashboard/stores/{slug}"]["patch"]["requestBody"]
>["content"]["application/json"];
export type AppData = Item<Ok<"/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", "get">>;
export type Address = NonNullable<Order["shippingAddress"]>;
export type AddressInput = NonNullable<StoreSettingsBody["address"]>;
export type Account = Ok<"/api/v1/dashboard/me", "get">;
export type OrderUpdateBody = NonNullable<
  paths["/api/v1/dashboard/stores/{slug}/orders/{id}"]["patch"]["requestBody"]
>["content"]["application/json"];
export type CustomerBody = NonNullable<
  paths["/api/v1/dashboard/stores/{slug}/customers/{id}"]["patch"]["requestBody"]
>["content"]["application/json"];
export type ProductVariant = Product["variants"][number];
export type ProductOption = Product["options"][number];
export type Location = Item<Ok<"/api/v1/dashboard/stores/{slug}/locations", "get">>;
export type InventoryLevel = Item<Ok<"/api/v1/dashboard/stores/{slug}/inventory-levels", "get">>;
export type ProductUpdateBody = NonNullable<
  paths["/api/v1/dashboard/stores/{slug}/products/{id}"]["patch"]["requestBody"]
>["content"]["application/json"];
export type InventorySetBody = NonNullable<
  paths["/api/v1/dashboard/stores/{slug}/inventory-levels/set"]["post"]["requestBody"]
>["content"]["application/json"];
export type Collection = Ok<"/api/v1/dashboard/stores/{slug}/collections/{id}", "get">;
export type CollectionRule = Collection["rules"][number];
export type AppListing = NonNullable<Ok<"/api/v1/dashboard/apps/{clientId}/listing", "put">>;
export type DirectoryEntry = Item<Ok<"/api/v1/dashboard/stores/{slug}/app-directory", "get">>;
export type StoreStaff = Ok<"/api/v1/dashboard/stores/{slug}/staff", "get">;
export type StaffMember = StoreStaff["members"][number];
export type StaffInvitation = StoreStaff["invitations"][number];
export type InvitationSent = Ok<"/api/v1/dashboard/stores/{slug}/staff/invitations", "post">;
export type InvitationPreview = Ok<"/api/v1/dashboard/invitations/lookup", "post">;
export type InvitationAccepted = Ok<"/api/v1/dashboard/invitations/accept", "post">;
export type DashboardStore = Item<Ok<"/api/v1/dashboard/stores", "get">>;
