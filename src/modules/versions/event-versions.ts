import { EVENT_BY_NAME, EVENT_PAYLOADS, type EventName } from "../../contracts/index.ts";
import type { ApiVersions } from "./api-versions.ts";
import type { Renderer } from "./render.ts";
import type { SchemaVersions } from "./schema-versions.ts";

/** How an event's data is written at one API version (a webhook body, a listen message). */
export interface EventVersion {
  /** The version, as the body's `apiVersion` and the `Api-Version` header say it. */
  apiVersion: string;
  /** The event's data (the newest shape, as recorded) as this version shows it. */
  data(topic: string, data: unknown): unknown;
}

/**
 * Events at a version (issue 29): a webhook body, a listen message, a privacy webhook are written
 * at their subscription's (or the app's) version: the event's data, recorded in the newest shape,
 * brought down to it by the record's schema (EVENT_PAYLOADS), as an answer is. One object per
 * version, made once.
 */
export function createEventVersions(deps: {
  versions: Pick<ApiVersions, "changesAfter">;
  renderer: Renderer;
  schemas: Pick<SchemaVersions, "at">;
}) {
  const made = new Map<string, EventVersion>();
  const stored = new Map<string, EventVersion>();
  return {
    /**
     * The schema of an event's data at `apiVersion` (what a subscription at that version filters
     * and keeps fields of); null for an event this platform does not declare.
     */
    payloadSchema(topic: string, apiVersion: string): object | null {
      const kind = EVENT_BY_NAME[topic as EventName]?.data;
      return kind ? deps.schemas.at(EVENT_PAYLOADS[kind], deps.versions.changesAfter(apiVersion)) : null;
    },
    /**
     * A stored body's version: labelled with `apiVersion`, its data kept in the newest shape (a
     * delivery's body is stored so; `render` brings it to its subscription's version when sent).
     */
    stored(apiVersion: string): EventVersion {
      let found = stored.get(apiVersion);
      if (!found) {
        found = { apiVersion, data: (_topic, data) => data };
        stored.set(apiVersion, found);
      }
      return found;
    },
    /**
     * The bytes to send of a stored body (newest-shape data, labelled `storedAt`) at `apiVersion`:
     * the body itself when nothing differs (every delivery at the newest version, the common case:
     * no parse), else its data rendered and its `apiVersion` set.
     */
    render(body: string, topic: string, storedAt: string, apiVersion: string): string {
      if (storedAt === apiVersion && deps.versions.changesAfter(apiVersion).length === 0) return body;
      const parsed = JSON.parse(body) as { apiVersion?: string; data?: unknown };
      parsed.apiVersion = apiVersion;
      if ("data" in parsed) parsed.data = this.at(apiVersion).data(topic, parsed.data);
      return JSON.stringify(parsed);
    },
    at(apiVersion: string): EventVersion {
      let found = made.get(apiVersion);
      if (!found) {
        const changes = deps.versions.changesAfter(apiVersion);
        found = {
          apiVersion,
          data: (topic, data) => {
            const kind = EVENT_BY_NAME[topic as EventName]?.data;
            // An event this platform no longer declares is written as it was recorded.
            return kind ? deps.renderer.render(EVENT_PAYLOADS[kind], data, changes) : data;
          },
        };
        made.set(apiVersion, found);
      }
      return found;
    },
  };
}
export type EventVersions = ReturnType<typeof createEventVersions>;
