import type { App } from "./types.ts";

/**
 * The routes one feature adds to each API family. app.ts registers every feature's routes inside
 * the family's scope after the family's guard is installed, so a feature never installs a guard and
 * every route it adds to a guarded family is guarded (and must declare its scope, or the app does
 * not start). platform.ts lists the features (`routes`): the service's one route table, and adding
 * a feature is one entry there. Within a family, routes register in the table's order.
 */
export interface FeatureRoutes {
  /**
   * What each OpenAPI tag this feature introduces means, by name. The document's tag list is the
   * tags the registered routes use, in the order they are first used, each described here by the
   * feature that owns it (another feature's routes may use it too). A route whose tag no feature
   * describes stops the app at start, and so does a description no route uses.
   */
  tags?: Record<string, string>;
  /**
   * Routes outside every family, at the root with their full paths and no guard: the probes, the
   * OAuth endpoints, the consent page's requests (each route authenticates itself, if at all).
   */
  public?: (app: App) => void;
  /**
   * The dashboard outside a store, `/api/v1/dashboard` (sign-up and sessions, the merchant's
   * stores, their apps): each route checks the session itself (`requireSession`, or none for
   * sign-up and login). State-changing requests must be JSON (the CSRF rule, dashboard-family.ts).
   */
  account?: (app: App) => void;
  /** The dashboard's store routes, `/api/v1/dashboard/stores/:slug/...` (session; a store the account owns). */
  store?: (app: App) => void;
  /** The Admin API, `/api/v1/apps/api` (an installation's bearer token). */
  admin?: (app: App) => void;
  /** The developer API, `/api/v1/developer` (a key pair). */
  developer?: (app: App) => void;
}

/** The tags the features describe, by name (a tag described twice, by two features, is an error). */
export function tagDescriptions(features: readonly FeatureRoutes[]): Map<string, string> {
  const described = new Map<string, string>();
  for (const feature of features)
    for (const [name, description] of Object.entries(feature.tags ?? {})) {
      if (described.has(name)) throw new Error(`The OpenAPI tag "${name}" is described by two features.`);
      described.set(name, description);
    }
  return described;
}
