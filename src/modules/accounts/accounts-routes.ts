import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import type { AccountLinkService } from "./account-links-service.ts";
import {
  AccountDetailsResource,
  AccountResource,
  ChangePasswordBody,
  ConfirmEmailChangeBody,
  LoginBody,
  RequestPasswordResetBody,
  ResetPasswordBody,
  SignupBody,
  toAccountDetails,
  toAccountResource,
  UpdateAccountBody,
} from "./accounts-schemas.ts";
import type { AccountService } from "./accounts-service.ts";
import { DEVICE_COOKIE, deviceCookieOptions } from "./device-cookie.ts";
import { currentAccount, SESSION_COOKIE, sessionCookieOptions } from "./session-auth.ts";

const tags = ["Dashboard: account"];
const cookieAuth = [{ sessionCookie: [] }];

export function registerAccountRoutes(
  app: App,
  deps: {
    accounts: AccountService;
    links: Pick<AccountLinkService, "requestReset" | "resetPassword" | "confirmEmailChange">;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    secureCookies: boolean;
  },
) {
  // The device cookie is only ever read by the login route: it goes to nothing else.
  const devicePath = `${app.prefix}/auth`;
  const setDeviceCookie = (reply: FastifyReply, device: { value: string; expiresAt: Date }) =>
    reply.setCookie(
      DEVICE_COOKIE,
      device.value,
      deviceCookieOptions(deps.secureCookies, devicePath, device.expiresAt),
    );
  const signedIn = (
    reply: FastifyReply,
    result: { session: { token: string; expiresAt: Date }; device: { value: string; expiresAt: Date } },
  ) =>
    setDeviceCookie(
      reply.setCookie(
        SESSION_COOKIE,
        result.session.token,
        sessionCookieOptions(deps.secureCookies, result.session.expiresAt),
      ),
      result.device,
    );

  app.post(
    "/auth/signup",
    {
      schema: {
        operationId: "dashboardSignup",
        security: [],
        tags,
        summary: "Create a merchant account and start a session",
        description:
          "Sets the session cookie `mp_session` (HttpOnly, SameSite=Lax) as a login does. An e-mail address that already has an account is 409 `CONFLICT` on `email`; the password rules are in the body's schema.",
        body: SignupBody,
        response: {
          201: Envelope(AccountResource, "Account created; the session cookie is set."),
          ...errorResponses("CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const result = await deps.accounts.signup(request.body);
      signedIn(reply, result);
      return reply.status(201).send({ success: true, data: toAccountResource(result.account) });
    },
  );

  app.post(
    "/auth/login",
    {
      schema: {
        operationId: "dashboardLogin",
        security: [],
        tags,
        summary: "Log in and start a session",
        description:
          "Repeated failures for one e-mail address or client IP are throttled with 429 and `Retry-After`. A browser that has signed in to the account before (it holds the `mp_device` cookie every sign-in sets) has its own failure budget instead, so guessing elsewhere never locks the merchant out of it; until the password changes or the account signs out everywhere, which ends that trust for every browser (the one that changed the password gets a new cookie).",
        body: LoginBody,
        response: {
          200: Envelope(AccountResource, "Logged in; the session cookie is set."),
          ...errorResponses("INVALID_CREDENTIALS"),
        },
      },
    },
    async (request, reply) => {
      const result = await deps.accounts.login(request.body, request.ip, request.cookies[DEVICE_COOKIE]);
      signedIn(reply, result);
      return { success: true as const, data: toAccountResource(result.account) };
    },
  );

  app.post(
    "/auth/logout",
    {
      schema: {
        operationId: "dashboardLogout",
        tags,
        summary: "End the current session",
        description:
          "Ends this browser's session on the server and clears its cookie; other sessions of the account stay (`/auth/logout-everywhere` ends them all). Answers 200 without a session too, so a retry never fails.",
        security: cookieAuth,
        response: { 200: Envelope(Type.Object({ loggedOut: Type.Boolean() })), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await deps.accounts.logout(token);
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(deps.secureCookies));
      return { success: true as const, data: { loggedOut: true } };
    },
  );

  app.post(
    "/auth/logout-everywhere",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardLogoutEverywhere",
        tags,
        summary: "End every session of the account, this one included",
        description:
          "Also ends the trust of every browser the account has signed in from (`mp_device` cookies, this browser's included): the next sign-in from any of them is throttled like a new browser's.",
        security: cookieAuth,
        response: {
          200: Envelope(Type.Object({ endedSessions: Type.Integer() })),
          ...errorResponses("UNAUTHENTICATED"),
        },
      },
    },
    async (request, reply) => {
      const ended = await deps.accounts.logoutEverywhere(currentAccount(request).id);
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(deps.secureCookies));
      // No longer trusted anywhere: nothing to keep in this browser either.
      reply.clearCookie(DEVICE_COOKIE, deviceCookieOptions(deps.secureCookies, devicePath));
      return { success: true as const, data: { endedSessions: ended } };
    },
  );

  app.post(
    "/account/password",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardChangePassword",
        tags,
        summary: "Change the password",
        description:
          "Needs the current password (wrong guesses are throttled like sign-ins: 429 after too many). Every other session of the account is signed out; this one stays. Every browser the account has signed in from stops being trusted (`mp_device` cookies); this one gets a new `mp_device` cookie.",
        security: cookieAuth,
        body: ChangePasswordBody,
        response: {
          200: Envelope(Type.Object({ signedOutSessions: Type.Integer() })),
          ...errorResponses("UNAUTHENTICATED"),
        },
      },
    },
    async (request, reply) => {
      const { signedOutSessions, device } = await deps.accounts.changePassword(
        currentAccount(request).id,
        request.body,
        request.cookies[SESSION_COOKIE] ?? "",
      );
      // Set from this path, the cookie still keeps its own Path (RFC 6265 lets a response name
      // any path of its host): only the login route receives it.
      setDeviceCookie(reply, device);
      return { success: true as const, data: { signedOutSessions } };
    },
  );

  app.patch(
    "/account",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardUpdateAccount",
        tags,
        summary: "Change the account's name, or ask for a new e-mail address",
        description:
          "Send only what changes. A new e-mail address (what the merchant signs in with) needs `currentPassword` (400 without; a wrong one is throttled like a sign-in: 429 after too many). Another account's address is a 409. The address changes only once the link e-mailed to the new address is opened (`dashboardConfirmEmailChange`, valid 24 hours); a notice goes to the current address, and `pendingEmail` shows the change until then. Asking again replaces the link; 5 requests an hour. Sessions stay signed in.",
        security: cookieAuth,
        body: UpdateAccountBody,
        response: {
          200: Envelope(AccountDetailsResource),
          ...errorResponses("UNAUTHENTICATED", "CONFLICT"),
        },
      },
    },
    async (request) => {
      const { account, pendingEmail } = await deps.accounts.updateProfile(
        currentAccount(request).id,
        request.body,
      );
      return { success: true as const, data: toAccountDetails(account, pendingEmail) };
    },
  );

  app.post(
    "/auth/password-reset",
    {
      schema: {
        operationId: "dashboardRequestPasswordReset",
        security: [],
        tags,
        summary: "Forgot password: e-mail a reset link",
        description:
          "Always 202, whether or not the address has an account, and answered before the address is looked up, so neither the answer nor its timing tells. An account's address receives a link that sets a new password (`dashboardResetPassword`): single use, valid 30 minutes. At most 3 e-mails per address an hour (further requests are answered the same and send nothing); 20 requests per client IP an hour, then 429 with `Retry-After`.",
        body: RequestPasswordResetBody,
        response: {
          202: Envelope(
            Type.Object({ accepted: Type.Literal(true) }),
            "Accepted: a link is on its way if the address has an account.",
          ),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      await deps.links.requestReset(request.body.email, request.ip);
      return reply.status(202).send({ success: true, data: { accepted: true } });
    },
  );

  app.post(
    "/auth/password-reset/confirm",
    {
      schema: {
        operationId: "dashboardResetPassword",
        security: [],
        tags,
        summary: "Set a new password with a reset link",
        description:
          "`token` is what follows `#token=` in the e-mailed link. The link is used up, with every other reset link of the account; every session of the account ends and every browser stops being trusted (as `dashboardChangePassword` does); a notice goes to the account's address. An unknown, used, replaced or expired link is 400 `INVALID_GRANT`; wrong tokens from one client IP are throttled (429), a right one never is.",
        body: ResetPasswordBody,
        response: {
          200: Envelope(Type.Object({ signedOutSessions: Type.Integer() })),
          ...errorResponses("INVALID_GRANT"),
        },
      },
    },
    async (request, reply) => {
      const result = await deps.links.resetPassword(request.body, request.ip);
      // The browser may hold a session of the account: it ended with the others.
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(deps.secureCookies));
      return { success: true as const, data: result };
    },
  );

  app.post(
    "/auth/email-change/confirm",
    {
      schema: {
        operationId: "dashboardConfirmEmailChange",
        security: [],
        tags,
        summary: "Confirm a new sign-in address with the e-mailed link",
        description:
          "`token` is what follows `#token=` in the link sent to the new address; no session is needed (the link may be opened on another device). The account then signs in with the new address and the previous address is told. Single use, valid 24 hours; an unknown, used, replaced or expired link is 400 `INVALID_GRANT`, an address another account took meanwhile 409. Wrong tokens from one client IP are throttled (429).",
        body: ConfirmEmailChangeBody,
        response: {
          200: Envelope(AccountResource),
          ...errorResponses("INVALID_GRANT", "CONFLICT"),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: toAccountResource(await deps.links.confirmEmailChange(request.body.token, request.ip)),
    }),
  );

  app.get(
    "/me",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardMe",
        tags,
        summary: "The signed-in account",
        description:
          "The account of the session cookie; 401 when there is none or it has ended (the dashboard's sign-in check).",
        security: cookieAuth,
        response: { 200: Envelope(AccountDetailsResource), ...errorResponses("UNAUTHENTICATED") },
      },
    },
    async (request) => {
      const account = currentAccount(request);
      return {
        success: true as const,
        data: toAccountDetails(account, await deps.accounts.pendingEmailChange(account.id)),
      };
    },
  );
}

/** Sign-up, sessions and the account, in the dashboard outside any store (platform.ts lists them). */
export function accountRoutes(deps: Parameters<typeof registerAccountRoutes>[1]): FeatureRoutes {
  return {
    tags: { "Dashboard: account": "Merchant sign-up and sessions (cookie `mp_session`)." },
    account: (app) => registerAccountRoutes(app, deps),
  };
}
