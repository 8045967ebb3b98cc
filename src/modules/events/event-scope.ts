import { EVENT_NAMES, EVENT_SCOPES, type EventName, isEventName } from "../../contracts/events.ts";
import type { Scope } from "../../contracts/scopes.ts";
import { AppError } from "../../lib/errors.ts";

/**
 * The scope an event needs (contracts/events.ts; `app/uninstalled` needs none), for whatever names an event:
 * a subscription, a test event, the events a feed read or a listen stream asks for. Routes run it as their `authorize` step (lib/http/api-family.ts),
 * so an idempotent replay never answers a token without it. `action` starts the message
 * ("Subscribing to", "A test", "Streaming").
 */
export function requireEventScope(granted: readonly Scope[], event: EventName, action: string): void {
  if (eventAllowed(granted, event)) return;
  const needed = EVENT_SCOPES[event];
  throw new AppError("INSUFFICIENT_SCOPE", {
    message: `${action} ${event} needs the ${needed} scope.`,
    details: { requiredScope: needed, grantedScopes: [...granted] },
  });
}

/** Whether a token with `granted` may receive `event` (app/uninstalled needs no scope). */
export function eventAllowed(granted: readonly Scope[], event: EventName): boolean {
  const needed = EVENT_SCOPES[event];
  return !needed || granted.includes(needed);
}

/** The events a token with `granted` may name (subscribe to, read, stream). */
export function eventsAllowed(granted: readonly Scope[]): EventName[] {
  return EVENT_NAMES.filter((event) => eventAllowed(granted, event));
}

/**
 * A comma-separated list of event names in the query parameter `field` (the feed's `types`,
 * listen's `events`): each name once, each known (400 naming `field`) and each within `granted`
 * (403, through requireEventScope with `action`).
 */
export function eventNamesParam(
  asked: string,
  granted: readonly Scope[],
  param: { field: string; action: string },
): EventName[] {
  const names = [...new Set(asked.split(",").map((s) => s.trim()))].filter(Boolean);
  const unknown = names.filter((n) => !isEventName(n));
  if (unknown.length || !names.length)
    throw new AppError("VALIDATION_FAILED", {
      message: `\`${param.field}\` must be a comma-separated list of event names.`,
      details: [{ field: param.field, message: `unknown event: ${unknown.join(", ") || "(none given)"}` }],
    });
  for (const name of names as EventName[]) requireEventScope(granted, name, param.action);
  return names as EventName[];
}
