import type { App } from "./types.ts";

/**
 * The routes one feature adds to each API family. app.ts registers every feature's routes inside
 * the family's scope after the family's guard is installed, so a feature never installs a guard and
 * every route it adds is guarded (and must declare its scope, or the app does not start).
 * platform.ts lists the features: adding one is one entry there.
 */
export interface FeatureRoutes {
  /** The Admin API, `/api/v1/apps/api` (an installation's bearer token). */
  admin?: (app: App) => void;
  /** The developer API, `/api/v1/developer` (a key pair). */
  developer?: (app: App) => void;
  /** The dashboard's store routes, `/api/v1/dashboard/stores/:slug/...` (session; a store the account owns). */
  store?: (app: App) => void;
}
