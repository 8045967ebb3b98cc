/**
 * Writes, from the committed openapi.json, the constants the SDK reads from its document instead
 * of restating them. Run by `npm run generate`.
 * - src/generated/api-version.ts: the API version the document (and so the SDK's types) describe,
 *   which the clients send as `Api-Version`.
 * - src/generated/query-bounds.ts: the bounds and defaults of every operation's integer query
 *   parameters (page sizes), for clients built on the SDK (the CLI).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Json = Record<string, unknown>;
const root = join(import.meta.dirname, "..");
const doc = JSON.parse(readFileSync(join(root, "..", "..", "openapi.json"), "utf8")) as {
  info: { version: string };
  paths: Record<string, Record<string, Json>>;
};
if (!/^\d{4}-\d{2}-\d{2}$/.test(doc.info.version))
  throw new Error(`openapi.json's info.version is not an API version: ${doc.info.version}`);
writeFileSync(
  join(root, "src", "generated", "api-version.ts"),
  `// Generated from openapi.json by scripts/document-constants.ts (npm run generate): do not edit.\n\n/** The API version this SDK was generated for: its types describe it, its clients send it as \`Api-Version\`. */\nexport const API_VERSION = ${JSON.stringify(doc.info.version)};\n`,
);
const bounds: Record<string, Record<string, { minimum?: number; maximum?: number; default?: number }>> = {};
for (const item of Object.values(doc.paths)) {
  for (const op of Object.values(item)) {
    const id = op.operationId as string | undefined;
    const parameters = (op.parameters ?? []) as Array<{ in: string; name: string; schema?: Json }>;
    for (const p of parameters) {
      if (!id || p.in !== "query" || p.schema?.type !== "integer") continue;
      const {
        minimum,
        maximum,
        default: dflt,
      } = p.schema as { minimum?: number; maximum?: number; default?: number };
      bounds[id] ??= {};
      bounds[id][p.name] = {
        ...(minimum !== undefined ? { minimum } : {}),
        ...(maximum !== undefined ? { maximum } : {}),
        ...(dflt !== undefined ? { default: dflt } : {}),
      };
    }
  }
}
const sorted = Object.fromEntries(Object.entries(bounds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(
  join(root, "src", "generated", "query-bounds.ts"),
  `// Generated from openapi.json by scripts/document-constants.ts (npm run generate): do not edit.\n\n/** Each operation's integer query parameters: their bounds and defaults, as the document states them. */\nexport const QUERY_BOUNDS = ${JSON.stringify(sorted, null, 2)} as const;\n`,
);
