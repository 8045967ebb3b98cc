import type { ApiVersions, VersionSpec } from "./api-versions.ts";
import type { SchemaVersions } from "./schema-versions.ts";
import type { Json, VersionChange } from "./version-change.ts";

/** The paths every version serves: the dashboard's are served at the current version only. */
const UNVERSIONED = /^\/api\/v1\/dashboard(\/|$)/;

/**
 * The OpenAPI document of an older version, from the current one: the versioned paths (the
 * dashboard is always current, so its paths are left out), every component schema and every
 * titled inline schema as that version has it (the changes' `schemas`), `info.version` the version.
 * The current version's document is the current document itself, with its version in `info`.
 */
export function documentAt(
  current: Json,
  version: string,
  deps: { versions: ApiVersions; schemas: SchemaVersions },
): Json {
  const changes = deps.versions.changesAfter(version);
  const info = { ...current.info, version };
  if (changes.length === 0) return { ...current, info };
  const paths = Object.fromEntries(Object.entries(current.paths ?? {}).filter(([p]) => !UNVERSIONED.test(p)));
  const components = { ...current.components };
  if (components.schemas) {
    components.schemas = Object.fromEntries(
      Object.entries(components.schemas as Record<string, Json>).map(([name, schema]) => [
        name,
        deps.schemas.component(name, schema, changes),
      ]),
    );
  }
  // A copy: the request bodies are rewritten in place, and the current document is shared.
  const olderPaths = structuredClone(deps.schemas.at(paths, changes)) as Record<string, Record<string, Json>>;
  for (const item of Object.values(olderPaths))
    for (const op of Object.values(item)) {
      const content = op?.requestBody?.content?.["application/json"];
      if (!content?.schema) continue;
      for (const change of changes) {
        const fn = change.requestSchemas?.[op.operationId];
        if (fn) content.schema = fn(content.schema);
      }
    }
  // The answers' examples were written in the newest shape: each is brought down as an answer is,
  // read against the newest document's schema of that answer.
  const refs = (current.components?.schemas ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(olderPaths))
    for (const [method, op] of Object.entries(item)) {
      const newest = (paths[path] as Record<string, Json> | undefined)?.[method]?.responses ?? {};
      for (const [code, response] of Object.entries((op?.responses ?? {}) as Record<string, Json>))
        for (const [type, content] of Object.entries((response?.content ?? {}) as Record<string, Json>)) {
          const schema = newest[code]?.content?.[type]?.schema;
          if (!schema) continue;
          if (content.example !== undefined)
            content.example = exampleAt(content.example, schema, refs, changes);
          for (const named of Object.values((content.examples ?? {}) as Record<string, Json>))
            if (named?.value !== undefined) named.value = exampleAt(named.value, schema, refs, changes);
        }
    }
  return {
    ...current,
    info,
    paths: olderPaths,
    ...(current.webhooks ? { webhooks: deps.schemas.at(current.webhooks, changes) } : {}),
    components,
  };
}

/** The changelog, newest version first: what each version changed (docs/api-changelog.md). */
export function changelogMarkdown(versions: readonly VersionSpec[]): string {
  const lines = [
    "# API changelog",
    "",
    "Generated from the version change modules (`src/modules/versions/`) by `npm run openapi`: do not edit.",
    "Every Admin API and developer API request is served at one version: its `Api-Version` header, or its",
    "credential's pinned version. A version is supported at least 12 months after the next one ships;",
    '`GET /api/versions` lists each one\'s status. The policy: `docs/decisions.md`, "API versions".',
    "",
  ];
  for (const v of [...versions].reverse()) {
    lines.push(`## ${v.version}`, "");
    if (v.deprecation)
      lines.push(`Deprecated from ${v.deprecation.at}; retired on ${v.deprecation.sunset}.`, "");
    if (v.changes.length === 0) lines.push("- The first version: the API as it stood when versions began.");
    for (const c of v.changes) lines.push(`- ${c.description}`);
    lines.push("");
  }
  return lines.join("\n");
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** The changelog as a page (`/api/docs/changelog`, the `Link` of a deprecated version's answers). */
export function changelogHtml(
  versions: readonly VersionSpec[],
  statusOf: (version: string) => string | null,
): string {
  const sections = [...versions].reverse().map((v) => {
    const status = statusOf(v.version);
    const items = v.changes.length
      ? v.changes
          .map((c) => `<li>${escapeHtml(c.description).replace(/`([^`]+)`/g, "<code>$1</code>")}</li>`)
          .join("")
      : "<li>The first version: the API as it stood when versions began.</li>";
    const deprecation = v.deprecation
      ? `<p>Deprecated from ${escapeHtml(v.deprecation.at)}; retired on ${escapeHtml(v.deprecation.sunset)}.</p>`
      : "";
    return `<section><h2 id="${escapeHtml(v.version)}">${escapeHtml(v.version)}${status ? ` <small>(${escapeHtml(status)})</small>` : ""}</h2>${deprecation}<ul>${items}</ul></section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>API changelog</title></head><body><main><h1>API changelog</h1><p>Each version's changes, newest first. Send <code>Api-Version: YYYY-MM-DD</code> to be served at a version; without it a request is served at its credential's pinned version. <a href="/api/versions">The versions and their status</a> · <a href="/api/docs/ui">API reference</a></p>${sections.join("")}</main></body></html>`;
}

/**
 * What the document's description says of versions: the version it describes, how to ask for
 * another, and each declared version's document. Nothing that changes with the date (statuses are
 * `GET /api/versions`'s), so the committed document stays the same until a version is declared.
 */
export function versionsNote(versions: readonly VersionSpec[], changelogUrl: string): string {
  const newest = versions.at(-1)!.version;
  const links = [...versions]
    .reverse()
    .map((v) =>
      v.version === newest
        ? `[${v.version}](/api/docs/ui) (this one)`
        : `[${v.version}](/api/docs/ui/versions/${v.version}) ([document](/api/docs/openapi.json?version=${v.version}))`,
    )
    .join(", ");
  return [
    "**Versions.** The Admin API and the developer API are versioned by date. Send `Api-Version: YYYY-MM-DD` with a request to be served at that version; without it, a request is served at its credential's pinned version (the app's, raised by its developer; the key pair's, set by the merchant). Every answer carries `Api-Version`, the version it was served at; a deprecated version's answers also carry `Deprecation`, `Sunset` and `Link: <changelog>; rel=\"deprecation\"`. A malformed, unknown or retired version answers 400 `UNSUPPORTED_API_VERSION`, never another version.",
    `This document describes the newest version; each version's own: ${links}. What each changed: [the changelog](${changelogUrl}); each one's status: \`GET /api/versions\`.`,
  ].join("\n\n");
}

/**
 * An example value of `schema` (the current document's, `$ref`s into `refs`) as the version before
 * `changes` shows it: every record a change transforms (by its schema's title, or the component's
 * name a `$ref` names), transformed after its own fields, newest change first; as answers are.
 */
function exampleAt(
  value: Json,
  schema: Json,
  refs: Record<string, Json>,
  changes: readonly VersionChange[],
): Json {
  const walk = (v: Json, node: Json, seen: number): Json => {
    if (node === null || typeof node !== "object" || v === null || v === undefined || seen > 32) return v;
    const title: string | undefined = node.title;
    if (typeof node.$ref === "string") {
      const name = node.$ref.split("/").at(-1)!;
      return walk(v, { title: name, ...refs[name] }, seen + 1);
    }
    let out = v;
    const alternatives = node.anyOf ?? node.oneOf;
    if (alternatives) {
      for (const a of alternatives as Json[]) {
        const next = walk(out, a, seen + 1);
        if (next !== out) {
          out = next;
          break;
        }
      }
    } else if (Array.isArray(v) && node.items) out = v.map((x) => walk(x, node.items, seen + 1));
    else if (typeof v === "object" && !Array.isArray(v) && node.properties) {
      out = { ...v };
      for (const [k, sub] of Object.entries(node.properties as Record<string, Json>))
        if (k in out) out[k] = walk(out[k], sub, seen + 1);
    }
    if (title === undefined || typeof out !== "object" || Array.isArray(out)) return out;
    for (const c of changes) {
      const fn = c.resources?.[title];
      if (fn) out = fn(out);
    }
    return out;
  };
  return walk(value, schema, 0);
}
