import Type from "typebox";
import { DeliveryStatusSchema, Id, Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, Timestamp } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, storeParams } from "../families/dashboard-family.ts";
import type { PrivacyService } from "./privacy-service.ts";

const AppRef = Type.Object({
  clientId: Type.String({ examples: ["mpc_3kTMd9Qx2LwZ7bPq5RvY8nHa"] }),
  name: Type.String({ examples: ["Loyalty points"] }),
});

const DataRequestDelivery = Type.Object(
  {
    id: Id("delivery"),
    status: DeliveryStatusSchema,
    attempts: Type.Integer({ examples: [1] }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()], { examples: [200] }),
    lastError: Type.Union([Type.String(), Type.Null()], { examples: [null] }),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
      description: "When it is tried again, while pending.",
    }),
    createdAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: "DataRequestDelivery" },
);

export const DataRequestResource = Type.Object(
  {
    id: Id("event", "The request: the `id` of the `customer.data_request` event the apps were sent."),
    requestedAt: Timestamp,
    apps: Type.Array(
      Type.Object({
        app: AppRef,
        delivery: {
          ...DataRequestDelivery,
          description: "The newest delivery of the request to the app's privacy endpoint.",
        },
      }),
      {
        description:
          "The apps asked at their privacy endpoint (installed with `read_customers` and with an endpoint), each with how its delivery went.",
      },
    ),
  },
  { title: "CustomerDataRequest" },
);

const AppsWithoutEndpoint = Type.Array(AppRef, {
  description:
    "Installed apps with `read_customers` that declare no privacy endpoint: they are sent nothing (they can read the requests in their event feed). Ask their developers.",
});

/**
 * The merchant's side of `customer.data_request`: ask the installed apps what they hold on a
 * customer, and see whom was asked, when, and how each delivery went.
 */
export function registerDashboardPrivacyRoutes(app: App, privacy: PrivacyService) {
  const tags = ["Dashboard: customers"];
  app.post(
    "/stores/:slug/customers/:id/data-requests",
    dashboardRoute({
      operationId: "dashboardRequestCustomerData",
      scope: Scope.write_customers,
      tags,
      summary: "Ask the apps what they hold on a customer",
      description:
        "Sends `customer.data_request` (the customer's id and order ids) to the privacy endpoint of every app installed in the store with `read_customers`. Signed, retried and logged like every delivery. Answers whom it was sent to, and the apps that could not be asked (no privacy endpoint). 409 for a deleted (anonymised) customer.",
      params: storeParams({ id: Id("customer") }),
      response: {
        201: Envelope(
          Type.Object(
            { ...DataRequestResource.properties, appsWithoutEndpoint: AppsWithoutEndpoint },
            { title: "CustomerDataRequestCreated" },
          ),
          "Sent",
        ),
      },
      errors: ["NOT_FOUND", "CONFLICT"],
    }),
    async (request, reply) =>
      reply.status(201).send({
        success: true as const,
        data: await privacy.requestCustomerData(storeOf(request), request.params.id),
      }),
  );
  app.get(
    "/stores/:slug/customers/:id/data-requests",
    dashboardRoute({
      operationId: "dashboardListCustomerDataRequests",
      scope: Scope.read_customers,
      tags,
      summary: "Data requests about a customer",
      description:
        "The `customer.data_request`s sent about the customer, newest first (the latest 50), each with the apps it was sent to and each delivery's status; and the installed apps that cannot be asked (no privacy endpoint).",
      params: storeParams({ id: Id("customer") }),
      response: {
        200: Envelope(
          Type.Object(
            { requests: Type.Array(DataRequestResource), appsWithoutEndpoint: AppsWithoutEndpoint },
            { title: "CustomerDataRequests" },
          ),
        ),
      },
      errors: ["NOT_FOUND"],
    }),
    async (request) => {
      const store = storeOf(request);
      const [requests, appsWithoutEndpoint] = await Promise.all([
        privacy.listDataRequests(store, request.params.id),
        privacy.appsWithoutEndpoint(store),
      ]);
      return {
        success: true as const,
        data: {
          requests,
          appsWithoutEndpoint: appsWithoutEndpoint.map((a) => ({ clientId: a.client_id, name: a.name })),
        },
      };
    },
  );
}

/** The privacy routes of every family (platform.ts lists them). */
export function privacyRoutes(privacy: PrivacyService): FeatureRoutes {
  return { store: (app) => registerDashboardPrivacyRoutes(app, privacy) };
}
