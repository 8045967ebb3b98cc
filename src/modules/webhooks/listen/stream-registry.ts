import type { ServerResponse } from "node:http";
import { ListenEndReason } from "../../../contracts/index.ts";

/** One open stream of this process. */
export interface StreamSlot {
  readonly installationId: string;
  /** Aborted when the client goes, another local connection takes the session over, or the server closes. */
  readonly controller: AbortController;
  sessionId: string | null;
  raw: ServerResponse | null;
}

/**
 * The listen streams open in this process, at most `max` per installation. A slot is reserved
 * before any other work (synchronously, so a burst of requests is counted one by one), and given
 * back when the stream ends. A connection resuming a session that this process is streaming takes
 * its slot over: the older stream ends (superseded) and does not count against the new one.
 */
export function createStreamRegistry(max: number) {
  const byInstallation = new Map<string, Set<StreamSlot>>();
  const bySession = new Map<string, StreamSlot>();
  return {
    max,
    /** A slot for a new stream of the installation, or null when it has `max` open here. */
    reserve(installationId: string, resumingSessionId: string | null): StreamSlot | null {
      const open = byInstallation.get(installationId) ?? new Set<StreamSlot>();
      const replaced = resumingSessionId ? bySession.get(resumingSessionId) : undefined;
      const counted = open.size - (replaced && open.has(replaced) ? 1 : 0);
      if (counted >= max) return null;
      const slot: StreamSlot = {
        installationId,
        controller: new AbortController(),
        sessionId: null,
        raw: null,
      };
      open.add(slot);
      byInstallation.set(installationId, open);
      return slot;
    },
    /** The slot streams `sessionId` on `raw`; an older stream of the session here ends. */
    bind(slot: StreamSlot, sessionId: string, raw: ServerResponse): void {
      const older = bySession.get(sessionId);
      if (older && older !== slot) older.controller.abort(ListenEndReason.superseded);
      slot.sessionId = sessionId;
      slot.raw = raw;
      bySession.set(sessionId, slot);
    },
    release(slot: StreamSlot): void {
      const open = byInstallation.get(slot.installationId);
      open?.delete(slot);
      if (open && open.size === 0) byInstallation.delete(slot.installationId);
      if (slot.sessionId && bySession.get(slot.sessionId) === slot) bySession.delete(slot.sessionId);
    },
    /** Open streams of the installation in this process. */
    count(installationId: string): number {
      return byInstallation.get(installationId)?.size ?? 0;
    },
    /** Server shutdown: every stream stops and its response ends now. */
    closeAll(): void {
      for (const open of byInstallation.values()) {
        for (const slot of open) {
          slot.controller.abort();
          slot.raw?.end();
        }
      }
    },
  };
}
export type StreamRegistry = ReturnType<typeof createStreamRegistry>;
