import type { FastifyReply, FastifyRequest } from "fastify";
import { INVITATION_TTL_DAYS, MAX_STAFF_PER_STORE, Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses, Id } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../families/dashboard-family.ts";
import {
  ChangeRoleBody,
  InvitationAccepted,
  InvitationPreview,
  InvitationSent,
  InvitationWithdrawn,
  InviteBody,
  StaffList,
  StaffMember,
  StaffRemoved,
  TokenBody,
} from "./staff-schemas.ts";
import type { StaffService } from "./staff-service.ts";

const tags = ["Dashboard: staff"];
const WHO_MAY_NOT =
  "Nobody changes or removes the store's owner, and nobody changes their own role or removes themselves (403 `FORBIDDEN`): another admin or the owner does.";

/** A store's staff in the dashboard (scope manage_staff: the owner and admins). */
export function registerStaffRoutes(app: App, staff: StaffService) {
  const actor = (request: FastifyRequest) => {
    const account = currentAccount(request);
    return { id: account.id, name: account.name };
  };

  app.get(
    "/stores/:slug/staff",
    dashboardRoute({
      operationId: "dashboardListStaff",
      scope: Scope.manage_staff,
      tags,
      summary: "The store's owner, staff and open invitations",
      description: `Each person with their role. At most ${MAX_STAFF_PER_STORE} staff members and open invitations together.`,
      params: StoreParams,
      response: { 200: Envelope(StaffList) },
    }),
    async (request) => ({ success: true as const, data: await staff.list(storeOf(request)) }),
  );

  app.post(
    "/stores/:slug/staff/invitations",
    dashboardRoute({
      operationId: "dashboardInviteStaff",
      scope: Scope.manage_staff,
      tags,
      summary: "Invite someone by e-mail",
      description: `Sends an e-mail with a link that works once, for ${INVITATION_TTL_DAYS} days, for an account with the invited address (an existing one signs in; someone new creates one with that address). Inviting the same address again replaces the open invitation. The owner's or a member's address is 409 \`CONFLICT\`, as is a store at ${MAX_STAFF_PER_STORE} staff members and open invitations.`,
      params: StoreParams,
      body: InviteBody,
      response: { 201: Envelope(InvitationSent, "Invited") },
      errors: ["CONFLICT", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request, reply) => {
      const store = storeOf(request);
      const sent = await staff.invite(store, actor(request), request.body);
      request.log.info({ store: store.slug, invitation: sent.invitation.id }, "staff invited");
      reply.header("cache-control", "no-store");
      return reply.status(201).send({ success: true as const, data: sent });
    },
  );

  app.delete(
    "/stores/:slug/staff/invitations/:invitationId",
    dashboardRoute({
      operationId: "dashboardWithdrawStaffInvitation",
      scope: Scope.manage_staff,
      tags,
      summary: "Withdraw an open invitation",
      description: "Its link stops working at once. An accepted or unknown invitation is 404.",
      params: storeParams({ invitationId: Id("invitation") }),
      response: { 200: Envelope(InvitationWithdrawn) },
      errors: ["NOT_FOUND", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request) => {
      await staff.withdraw(storeOf(request), request.params.invitationId);
      return { success: true as const, data: { id: request.params.invitationId, withdrawn: true as const } };
    },
  );

  app.patch(
    "/stores/:slug/staff/:accountId",
    dashboardRoute({
      operationId: "dashboardChangeStaffRole",
      scope: Scope.manage_staff,
      tags,
      summary: "Give a staff member another role",
      description: `Counts from their next request. ${WHO_MAY_NOT}`,
      params: storeParams({ accountId: Id("account") }),
      body: ChangeRoleBody,
      response: { 200: Envelope(StaffMember) },
      errors: ["NOT_FOUND", "FORBIDDEN", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request) => ({
      success: true as const,
      data: await staff.changeRole(
        storeOf(request),
        actor(request),
        request.params.accountId,
        request.body.role,
      ),
    }),
  );

  app.delete(
    "/stores/:slug/staff/:accountId",
    dashboardRoute({
      operationId: "dashboardRemoveStaff",
      scope: Scope.manage_staff,
      tags,
      summary: "Remove a staff member",
      description: `They lose the store at once, and every session of their account ends (they are signed out everywhere). ${WHO_MAY_NOT}`,
      params: storeParams({ accountId: Id("account") }),
      response: { 200: Envelope(StaffRemoved) },
      errors: ["NOT_FOUND", "FORBIDDEN", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request) => {
      const store = storeOf(request);
      const { signedOutSessions } = await staff.remove(store, actor(request), request.params.accountId);
      request.log.info({ store: store.slug, account: request.params.accountId }, "staff member removed");
      return {
        success: true as const,
        data: { accountId: request.params.accountId, removed: true as const, signedOutSessions },
      };
    },
  );
}

/** Reading and accepting an invitation, outside any store (the invited person is not in it yet). */
export function registerInvitationRoutes(
  app: App,
  deps: {
    staff: StaffService;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
) {
  app.post(
    "/invitations/lookup",
    {
      schema: {
        operationId: "dashboardLookUpInvitation",
        security: [],
        tags,
        summary: "What an invitation offers",
        description:
          "The page an invitation's link opens reads it here, signed in or not: the store, the role, the address invited and who sent it. A token that is unknown, used, withdrawn or expired is 404. (POST, so the token never sits in a URL or a log line.)",
        body: TokenBody,
        response: { 200: Envelope(InvitationPreview), ...errorResponses("NOT_FOUND") },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { success: true as const, data: await deps.staff.lookup(request.body.token) };
    },
  );

  app.post(
    "/invitations/accept",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardAcceptInvitation",
        security: [{ sessionCookie: [] }],
        tags,
        summary: "Accept an invitation",
        description:
          "The signed-in account joins the store with the invited role; its e-mail address must be the invited one (403 `FORBIDDEN` otherwise). The token works once: a used, withdrawn, expired or unknown one is 404; someone already working in the store is 409.",
        body: TokenBody,
        response: {
          200: Envelope(InvitationAccepted),
          ...errorResponses("UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"),
        },
      },
    },
    async (request) => {
      const account = currentAccount(request);
      const accepted = await deps.staff.accept(account, request.body.token);
      request.log.info({ store: accepted.store.slug, account: account.id }, "invitation accepted");
      return { success: true as const, data: accepted };
    },
  );
}

export function staffRoutes(
  staff: StaffService,
  requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): FeatureRoutes {
  return {
    tags: {
      "Dashboard: staff":
        "The people who work in a store and their roles (owner, admin, orders and fulfilment, catalogue, read-only): each role is a set of the store's scopes, checked on every dashboard route. Invitations by e-mail, role changes, removals.",
    },
    account: (app) => registerInvitationRoutes(app, { staff, requireSession }),
    store: (app) => registerStaffRoutes(app, staff),
  };
}
