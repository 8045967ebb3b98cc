/**
 * The platform's contract as the dashboard uses it: the same module the server derives its routes,
 * checks and documents from (src/contracts/), so labels, statuses, transitions and field rules are
 * never restated here. The one import of it in the dashboard.
 */
export * from "../../src/contracts/index.ts";
