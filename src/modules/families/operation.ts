import type { FastifyReply, FastifyRequest } from "fastify";
import type { Static, TObject, TProperties, TSchema } from "typebox";
import type { StoreScope } from "../../contracts/scopes.ts";
import type { Store } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../../lib/errors.ts";
import type { App } from "../../lib/http/types.ts";
import { type AUTHENTICATED, type RouteSpec, storeOf } from "./api-family.ts";

/**
 * One operation, declared once and mounted in each API family that offers it (CONVENTIONS: "One
 * operation, mounted in each family that offers it"). The operation holds what every family shares:
 * its method, its path under the store, its schemas and documentation, and the service call with
 * how its answer is viewed. The family supplies where the path hangs (the dashboard's stores are
 * `/stores/:slug`), its guard and security, and the viewer (an app sees its own metadata). The
 * mount states the family's literal operationId and scope, as every route does.
 */

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Validated<X> = X extends TSchema ? Static<X> : undefined;
type ParamsOf<P> = P extends TProperties ? Static<TObject<P>> : Record<string, never>;

/**
 * Who views a record: an app sees its own metadata on it (and only its own); anyone else (the
 * merchant, a key pair) sees the record without (app-metadata.ts `forViewer`).
 */
export type Viewer = { appId: string } | undefined;

/** Who makes a request: the merchant signed in to the dashboard, an app, or a key pair. */
export type Principal =
  | { kind: "account"; id: string; name: string }
  | { kind: "app"; appId: string; installationId: string }
  | { kind: "key"; keyId: string };

/** Who an operation answers: the store the request acts on, who asks, and who views the answer. */
export interface Caller {
  store: Store;
  principal: Principal;
  /** The app that asks (the Admin API): its own metadata is part of what it sees. */
  viewer: Viewer;
  /**
   * Throws once the credential that authenticated the request may no longer act: a long answer
   * (an export) calls it as it goes.
   */
  stillAllowed(): Promise<void>;
  /**
   * The API version the request is served at (the Admin API and the developer API; null in the
   * dashboard, which is always the newest). Answers are brought to it for the operation; what an
   * operation writes itself (an export's lines) is brought to it by the operation.
   */
  apiVersion: string | null;
}

/** The documentation and schemas a family's route helper takes, as the operation states them. */
interface OperationDocs<Q extends TSchema | undefined, B extends TSchema | undefined> {
  summary: string;
  description?: string;
  querystring?: Q;
  body?: B;
  response: Record<number, TSchema>;
  errors?: ErrorCode[];
}

/** An answer: the envelope's fields but `success`, or the reply itself once the operation sent it. */
type Answer<R extends Record<number, TSchema>> =
  | Omit<Static<R[keyof R & (200 | 201)]>, "success">
  | FastifyReply;

export interface OperationInput<
  P extends TProperties | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
> {
  caller: Caller;
  params: ParamsOf<P>;
  query: Validated<Q>;
  body: Validated<B>;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface OperationSpec<
  P extends TProperties | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends Record<number, TSchema>,
> extends OperationDocs<Q, B> {
  method: Method;
  /**
   * The path under the store (`/products/:id`; `/store` for the store itself): the Admin and
   * developer APIs mount it as it is, the dashboard under the store's own address.
   */
  path: string;
  /** The path parameters besides the store's slug, as properties. */
  params?: P;
  /**
   * A larger body than BODY_LIMIT_BYTES, for an operation that takes a file (an image upload, a
   * CSV import); documented as the operation's `x-body-limit`.
   */
  bodyLimit?: number;
  response: R;
  /**
   * The rest of the operation's authorisation, on the validated request (see FastifyContextConfig
   * `authorize`): never in `run`, which an idempotent replay skips.
   */
  authorize?: (request: FastifyRequest & { body: Validated<B>; params: ParamsOf<P> }) => void | Promise<void>;
  /** The service call, and how its answer is viewed by the caller. */
  run(input: OperationInput<P, Q, B>): Promise<Answer<R>>;
}

export type Operation = OperationSpec<
  TProperties | undefined,
  TSchema | undefined,
  TSchema | undefined,
  Record<number, TSchema>
>;

/** Declares an operation (typed: `run` gets the validated params, query and body). */
export function defineOperation<
  P extends TProperties | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends Record<number, TSchema> = Record<number, TSchema>,
>(spec: OperationSpec<P, Q, B, R>): Operation {
  return spec as unknown as Operation;
}

/** How a family mounts operations: where they hang, their route options, and the viewer. */
export interface Family<S extends StoreScope> {
  /** Where an operation's path is in the family's scope (the dashboard's are under `/stores/:slug`). */
  url(path: string): string;
  /** The path parameters' schema: the operation's own, with the family's (the store's slug). */
  params(properties: TProperties | undefined): TObject | undefined;
  /** The family's route helper (familyRoute): security, scope and error responses. */
  // biome-ignore lint/suspicious/noExplicitAny: the helper's own generics are the family's business.
  route(spec: RouteSpec<S> & { authorize?: any }): any;
  /** Who makes the request (set by the family's guard). */
  principal(request: FastifyRequest): Principal;
  /** Who views the answer: the app on the Admin API; nobody in particular elsewhere. */
  viewer(request: FastifyRequest): Viewer;
}

/** What a mount states itself: the family's literal operationId, scope and tags, and what differs. */
export interface Mounted<S extends StoreScope> {
  operationId: string;
  scope: S | typeof AUTHENTICATED;
  tags: string[];
  /**
   * What this family documents otherwise (its own summary, description, a documented example) or
   * validates otherwise (an app's body takes its `metadata`). The service call is the operation's.
   */
  summary?: string;
  description?: string;
  body?: TSchema;
  response?: Record<number, TSchema>;
}

/**
 * Registers `operation` in the family's scope with the family's operationId and scope. The route's
 * options are exactly what a route written by hand for the family would state, in the same order
 * (operationId, scope, tags, params, then the operation's documentation), so the OpenAPI document
 * does not change with how a route is written.
 */
export function mount<S extends StoreScope>(
  app: App,
  family: Family<S>,
  operation: Operation,
  declared: Mounted<S>,
): void {
  const { method, path, params, run, authorize, bodyLimit, ...docs } = operation;
  const { operationId, scope, tags, ...overrides } = declared;
  const schemaParams = family.params(params);
  const status = 201 in docs.response ? 201 : 200;
  const options = family.route({
    operationId,
    scope,
    tags,
    ...(schemaParams ? { params: schemaParams } : {}),
    ...docs,
    ...overrides,
    ...(authorize ? { authorize } : {}),
    // Documented where it differs from BODY_LIMIT_BYTES, so a client (and the fuzzer) knows it.
    ...(bodyLimit ? { "x-body-limit": bodyLimit } : {}),
  } as RouteSpec<S>);
  app.route({
    method,
    url: family.url(path),
    ...options,
    ...(bodyLimit ? { bodyLimit } : {}),
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const answer = await run({
        caller: {
          store: storeOf(request),
          principal: family.principal(request),
          viewer: family.viewer(request),
          apiVersion: request.apiVersion ?? null,
          stillAllowed: async () => {
            if (!request.credentialCheck)
              throw new AppError("INTERNAL", { message: "This family checks no credential again." });
            await request.credentialCheck();
          },
        },
        params: request.params as never,
        query: request.query as never,
        body: request.body as never,
        request,
        reply,
      });
      if (answer === reply) return reply;
      const body = { success: true as const, ...(answer as object) };
      return status === 201 ? reply.status(201).send(body) : body;
    },
  });
}
