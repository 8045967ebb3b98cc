export {
  type AdminClient,
  type AdminPaths,
  createAdminClient,
  createDeveloperClient,
  type DeveloperClient,
  type DeveloperPaths,
  type ExportAll,
  paginate,
  unwrap,
} from "./clients.ts";
export {
  type ApiErrorCode,
  type AuthorizationErrorCode,
  type ClientErrorCode,
  type OAuthErrorCode,
  PlatformError,
  type PlatformErrorCode,
} from "./errors.ts";
export {
  type CursorStore,
  type EventFeed,
  type EventListOptions,
  eventFeed,
  type FeedEvent,
} from "./events.ts";
export { type ExportOptions, type ExportRecord, type ExportResource, exportRecords } from "./export.ts";
export type { components as Components, paths as Paths } from "./generated/api.ts";
export { API_VERSION } from "./generated/api-version.ts";
export { QUERY_BOUNDS } from "./generated/query-bounds.ts";
export { type Fetch, isIdempotent, type RetryOptions, retryingFetch } from "./http.ts";
export {
  forwardWebhook,
  type ListenMessage,
  type ListenOptions,
  listen,
  readSse,
  type SseMessage,
} from "./listen.ts";
export {
  type AppCredentials,
  authorizeUrl,
  createPkce,
  createTokenManager,
  exchangeCode,
  memoryTokenStore,
  type RefreshLock,
  readCallback,
  type TokenManager,
  type TokenManagerOptions,
  type TokenSet,
  type TokenStore,
} from "./oauth.ts";
export {
  disabledWebhooks,
  enableWebhook,
  type Instant,
  recoverWebhook,
  type WebhookEnabled,
  type WebhookRecovery,
  type WebhookSubscription,
} from "./recovery.ts";
export {
  createDuplicateFilter,
  type DuplicateFilter,
  type DuplicateStore,
  expressWebhookHandler,
  fastifyWebhookPlugin,
  handleWebhook,
  memoryDuplicateStore,
  nodeWebhookHandler,
  type VerifiedWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventName,
  type WebhookEvents,
  type WebhookFailure,
  type WebhookHandlerOptions,
  WebhookVerificationError,
} from "./webhooks.ts";
