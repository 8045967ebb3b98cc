import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { AccountResource, LoginBody, SignupBody, toAccountResource } from "./accounts-schemas.ts";
import type { AccountService } from "./accounts-service.ts";
import { currentAccount, SESSION_COOKIE, sessionCookieOptions } from "./session-auth.ts";

const tags = ["Dashboard: account"];
const cookieAuth = [{ sessionCookie: [] }];

export function registerAccountRoutes(
  app: App,
  deps: {
    accounts: AccountService;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    secureCookies: boolean;
  },
) {
  const setSession = (reply: FastifyReply, session: { token: string; expiresAt: Date }) =>
    reply.setCookie(
      SESSION_COOKIE,
      session.token,
      sessionCookieOptions(deps.secureCookies, session.expiresAt),
    );

  app.post(
    "/auth/signup",
    {
      schema: {
        operationId: "dashboardSignup",
        tags,
        summary: "Create a merchant account and start a session",
        body: SignupBody,
        response: {
          201: Envelope(AccountResource, "Account created; the session cookie is set."),
          ...errorResponses("CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const { account, session } = await deps.accounts.signup(request.body);
      setSession(reply, session);
      return reply.status(201).send({ success: true, data: toAccountResource(account) });
    },
  );

  app.post(
    "/auth/login",
    {
      schema: {
        operationId: "dashboardLogin",
        tags,
        summary: "Log in and start a session",
        description:
          "Repeated failures for one e-mail address or client IP are throttled with 429 and `Retry-After`.",
        body: LoginBody,
        response: {
          200: Envelope(AccountResource, "Logged in; the session cookie is set."),
          ...errorResponses("INVALID_CREDENTIALS"),
        },
      },
    },
    async (request, reply) => {
      const { account, session } = await deps.accounts.login(request.body, request.ip);
      setSession(reply, session);
      return { success: true as const, data: toAccountResource(account) };
    },
  );

  app.post(
    "/auth/logout",
    {
      schema: {
        operationId: "dashboardLogout",
        tags,
        summary: "End the current session",
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

  app.get(
    "/me",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardMe",
        tags,
        summary: "The signed-in account",
        security: cookieAuth,
        response: { 200: Envelope(AccountResource), ...errorResponses("UNAUTHENTICATED") },
      },
    },
    async (request) => ({ success: true as const, data: toAccountResource(currentAccount(request)) }),
  );
}
