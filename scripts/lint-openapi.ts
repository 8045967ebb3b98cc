/**
 * Lints every committed OpenAPI document: openapi.json (the current API version) and
 * openapi/<version>.json (every other declared version), with Redocly (recommended) and Spectral
 * (spectral:oas); fails on any error. `npm run lint:openapi`, in CI.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const versions = existsSync(join(root, "openapi"))
  ? readdirSync(join(root, "openapi"))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => join("openapi", f))
  : [];
const documents = ["openapi.json", ...versions];
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
let failed = false;
for (const document of documents) {
  console.log(`\n== ${document}`);
  for (const [command, args] of [
    [bin("redocly"), ["lint", document, "--format=summary"]],
    [bin("spectral"), ["lint", document, "--fail-severity=error"]],
  ] as const) {
    const run = spawnSync(command, [...args], { cwd: root, env, stdio: "inherit" });
    if (run.status !== 0) failed = true;
  }
}
process.exit(failed ? 1 : 0);
