import type { FastifyReply, FastifyRequest } from "fastify";
import type { TProperties } from "typebox";
import type { Store } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../errors.ts";
import { errorResponses } from "./schemas.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The store a store-scoped request acts on, set by the family's guard. */
    store: Store | null;
  }
}

import type { Scope } from "../scopes.ts";

export type { Scope };

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * One API family (dashboard, Admin API, developer API): how a store-scoped request is
 * authenticated and which store it acts on. Resource routes are written once against this.
 */
export interface ApiFamily {
  /** Tag prefix in the OpenAPI document, e.g. "Dashboard". */
  tag: string;
  /** Prefix of operation ids, e.g. "dashboard". */
  operation: string;
  security: Array<Record<string, string[]>>;
  /** Path parameters every store-scoped route of the family has (the dashboard's `{slug}`). */
  params: TProperties;
  /** Path prefix of store-scoped routes, relative to the family's mount point. */
  storePath: string;
  /** preHandler authenticating the request for `scope` and setting request.store. */
  guard(scope: Scope): Hook;
  /**
   * For families whose every route takes the same credentials: authenticates once per request
   * (idempotent) and sets request.store. Installed as the family scope's onRequest hook, so a
   * request without valid credentials answers 401 before its body is parsed or validated.
   */
  authenticate?: Hook;
  /** Error codes the guard can answer, for the route's documentation. */
  authErrors: ErrorCode[];
}

export function storeOf(request: FastifyRequest): Store {
  if (!request.store) throw new AppError("INTERNAL", { message: "Store not resolved." });
  return request.store;
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** 403 INSUFFICIENT_SCOPE naming the scope needed, unless `granted` holds it (exact match). */
export function requireScope(
  granted: readonly Scope[],
  scope: Scope,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (granted.includes(scope)) return;
  throw new AppError("INSUFFICIENT_SCOPE", {
    message,
    details: { requiredScope: scope, grantedScopes: [...granted] },
    headers,
  });
}

/** The documented error responses of a family's route: its guard's codes plus the route's own. */
export function familyErrors(family: Pick<ApiFamily, "authErrors">, ...codes: ErrorCode[]) {
  return errorResponses(...family.authErrors, ...codes);
}
