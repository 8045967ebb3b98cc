/**
 * The platform's contract, declared once: scopes, statuses and their transitions, event names with
 * their scopes and payloads, id prefixes, field limits and the public resources. Everything else
 * (route schemas, services, SQL checks, the OpenAPI document, the dashboard) derives from here.
 * Plain TypeScript and TypeBox only: the dashboard imports it in the browser.
 */

export * from "./credentials.ts";
export * from "./date-time.ts";
export * from "./erasure.ts";
export * from "./events.ts";
export * from "./fields.ts";
export * from "./limits.ts";
export * from "./locale.ts";
export * from "./resources.ts";
export * from "./roles.ts";
export * from "./scopes.ts";
export * from "./statuses.ts";
export * from "./webhook-filters.ts";
