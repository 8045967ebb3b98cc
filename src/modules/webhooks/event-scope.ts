import { EVENT_NAMES, EVENT_SCOPES, type EventName } from "../../contracts/events.ts";
import type { Scope } from "../../contracts/scopes.ts";
import { AppError } from "../../lib/errors.ts";

/**
 * The scope an event needs (spec 6.1; `app/uninstalled` needs none), for whatever names an event:
 * a subscription, a test event. Routes run it as their `authorize` step (lib/http/api-family.ts),
 * so an idempotent replay never answers a token without it. `action` starts the message
 * ("Subscribing to", "A test").
 */
export function requireEventScope(granted: readonly Scope[], event: EventName, action: string): void {
  const needed = EVENT_SCOPES[event];
  if (!needed || granted.includes(needed)) return;
  throw new AppError("INSUFFICIENT_SCOPE", {
    message: `${action} ${event} needs the ${needed} scope.`,
    details: { requiredScope: needed, grantedScopes: [...granted] },
  });
}

/** The events a token with `granted` may name (subscribe to, rotate the secret of a subscription to). */
export function eventsAllowed(granted: readonly Scope[]): EventName[] {
  return EVENT_NAMES.filter((event) => {
    const needed = EVENT_SCOPES[event];
    return !needed || granted.includes(needed);
  });
}
