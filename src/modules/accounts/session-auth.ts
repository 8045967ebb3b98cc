import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../lib/errors.ts";
import type { AccountService, SessionAccount } from "./accounts-service.ts";

export const SESSION_COOKIE = "mp_session";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by requireSession on dashboard routes. */
    account: SessionAccount | null;
  }
}

export function sessionCookieOptions(secure: boolean, expires?: Date) {
  return { path: "/", httpOnly: true, sameSite: "lax" as const, secure, ...(expires ? { expires } : {}) };
}

/** preHandler: the request must carry a live dashboard session. */
export function createSessionGuard(accounts: Pick<AccountService, "authenticate">) {
  return async function requireSession(request: FastifyRequest, _reply: FastifyReply) {
    const token = request.cookies[SESSION_COOKIE];
    const account = token ? await accounts.authenticate(token) : null;
    if (!account) throw new AppError("UNAUTHENTICATED", { message: "Log in to use the dashboard." });
    request.account = account;
  };
}

/** The signed-in account of a guarded route. */
export function currentAccount(request: FastifyRequest): SessionAccount {
  if (!request.account) throw new AppError("UNAUTHENTICATED");
  return request.account;
}
