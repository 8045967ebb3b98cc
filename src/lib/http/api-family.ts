import type { FastifyReply, FastifyRequest } from "fastify";
import type { TProperties } from "typebox";
import type { Store } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The store a store-scoped request acts on, set by the family's guard. */
    store: Store | null;
  }
}

import type { Scope } from "../scopes.ts";

export type { Scope };

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
  guard(scope: Scope): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
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
