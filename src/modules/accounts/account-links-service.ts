import type { Db } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import type { CredentialGuard, RateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { AccountLinksRepo } from "./account-links-repo.ts";
import { accountMessages } from "./account-messages.ts";
import type { AccountRepo } from "./accounts-repo.ts";
import { newLinkToken, parseLinkToken, secretMatches } from "./link-tokens.ts";
import type { PasswordHashing } from "./password.ts";

/** A password-reset link works this long (the 30 minutes). */
export const RESET_TTL_MINUTES = 30;
/** A new address's confirmation link works this long. */
export const EMAIL_CHANGE_TTL_HOURS = 24;

const invalidLink = () =>
  new AppError("INVALID_GRANT", {
    message: "This link is not valid: it has expired, was already used, or was replaced by a newer one.",
  });

/**
 * What the e-mailed links do: "forgot password" (a reset link, single use, 30 minutes) and the
 * confirmation of a new sign-in address. Throttles:
 * - reset requests: `perAddress` e-mails per address per hour (past it the request is answered the
 *   same and nothing is sent: nobody can flood an inbox, and the answer says nothing about the
 *   address), `perIp` requests per client address per hour (past it 429);
 * - link secrets: 256 random bits nobody guesses; wrong ones count against the client address
 *   (the guard for random secrets), which never refuses a right one: the owner of the link is
 *   never locked out by someone else's guessing.
 */
export function createAccountLinkService(deps: {
  db: Db;
  accounts: Pick<
    AccountRepo,
    "findByEmail" | "findById" | "setPasswordHash" | "deleteSessionsOf" | "updateProfile"
  >;
  links: AccountLinksRepo;
  mailer: Mailer;
  passwords: PasswordHashing;
  clock: Clock;
  /** The dashboard's origin (PUBLIC_BASE_URL): the links point there. */
  baseUrl: string;
  limits: { resetPerAddress: RateLimiter; resetPerIp: RateLimiter; emailChangePerAccount: RateLimiter };
  guard: CredentialGuard;
  onError: (error: unknown) => void;
}) {
  const { db, accounts, links, mailer, clock } = deps;
  /** Reset requests being handled after their answer (see requestReset). */
  const inFlight = new Set<Promise<void>>();

  async function sendReset(email: string) {
    // Counted whether or not the address has an account: the budget itself says nothing.
    const perAddress = await deps.limits.resetPerAddress.consume(`reset:${email.toLowerCase()}`);
    if (!perAddress.allowed) return;
    const account = await accounts.findByEmail(email);
    if (!account) return;
    const now = clock.now();
    const link = newLinkToken("passwordReset");
    await db.transaction().execute(async (tx) => {
      await links.insertReset(
        {
          id: link.id,
          account_id: account.id,
          secret_hash: link.secretHash,
          created_at: now,
          expires_at: new Date(now.getTime() + RESET_TTL_MINUTES * 60_000),
        },
        tx,
      );
      await mailer.send(
        accountMessages.passwordReset({
          to: account.email,
          name: account.name,
          link: `${deps.baseUrl}/reset-password#token=${link.token}`,
          validMinutes: RESET_TTL_MINUTES,
        }),
        tx,
      );
    });
  }

  /** The record of a presented link secret, verified under the guessing guard, or INVALID_GRANT. */
  async function verifyLink<T extends { secret_hash: string }>(
    kind: "passwordReset" | "emailChange",
    token: string,
    ip: string,
    find: (id: string) => Promise<T | undefined>,
  ): Promise<T> {
    const parsed = parseLinkToken(kind, token);
    return deps.guard.verify(
      { id: `link:${parsed?.id ?? "malformed"}`, ip },
      async () => {
        if (!parsed) return undefined;
        const row = await find(parsed.id);
        return row && secretMatches(parsed.secret, row.secret_hash) ? row : undefined;
      },
      invalidLink,
    );
  }

  return {
    /**
     * "Forgot password". Answers at once and the same way for every address, with an account or
     * not: the lookup, the link and the e-mail happen after the answer, so neither the answer nor
     * its timing tells whether the address is registered. 429 past the per-IP budget.
     */
    async requestReset(email: string, ip: string): Promise<void> {
      const perIp = await deps.limits.resetPerIp.consume(`reset-ip:${ip}`);
      if (!perIp.allowed)
        throw new AppError("RATE_LIMITED", {
          message: "Too many password reset requests from this address. Try again later.",
          headers: { "retry-after": String(Math.max(1, perIp.resetSeconds)) },
        });
      const work: Promise<void> = sendReset(email.trim())
        .catch(deps.onError)
        .finally(() => inFlight.delete(work));
      inFlight.add(work);
    },

    /**
     * Sets a new password with a reset link. The link is used up (one of two concurrent uses
     * wins), with every other open reset link of the account; the password changes; every session
     * of the account ends and every trusted browser stops being trusted (as a password change
     * does); a notice goes to the account's address. All in one transaction, the notice included
     * (it is sent after the commit).
     */
    async resetPassword(input: { token: string; newPassword: string }, ip: string) {
      const reset = await verifyLink("passwordReset", input.token, ip, (id) => links.findReset(id));
      const now = clock.now();
      if (reset.used_at || reset.expires_at <= now) throw invalidLink();
      // Hashed before the transaction: argon2 takes tens of milliseconds, no row waits on it.
      const hash = await deps.passwords.hash(input.newPassword);
      return db.transaction().execute(async (tx) => {
        const accountId = await links.useReset(reset.id, now, tx);
        if (!accountId) throw invalidLink();
        const account = await accounts.findById(accountId, tx);
        if (!account) throw invalidLink();
        await accounts.setPasswordHash(accountId, hash, tx);
        const signedOutSessions = await accounts.deleteSessionsOf(accountId, null, tx);
        await mailer.send(
          accountMessages.passwordChanged({
            to: account.email,
            name: account.name,
            signInUrl: `${deps.baseUrl}/login`,
          }),
          tx,
        );
        return { signedOutSessions };
      });
    },

    /**
     * Starts a change of sign-in address (the caller checked the password and that the address is
     * free): a confirmation link to the new address, a notice to the current one. The address
     * changes only when the link is opened (confirmEmailChange). A new request replaces the last.
     */
    async startEmailChange(account: { id: string; email: string; name: string }, newEmail: string) {
      const decision = await deps.limits.emailChangePerAccount.consume(`email-change:${account.id}`);
      if (!decision.allowed)
        throw new AppError("RATE_LIMITED", {
          message: "Too many address changes asked for. Try again later.",
          headers: { "retry-after": String(Math.max(1, decision.resetSeconds)) },
        });
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_TTL_HOURS * 3_600_000);
      const link = newLinkToken("emailChange");
      await db.transaction().execute(async (tx) => {
        await links.insertEmailChange(
          {
            id: link.id,
            account_id: account.id,
            new_email: newEmail,
            secret_hash: link.secretHash,
            created_at: now,
            expires_at: expiresAt,
          },
          tx,
        );
        await mailer.send(
          accountMessages.confirmEmail({
            to: newEmail,
            name: account.name,
            link: `${deps.baseUrl}/confirm-email#token=${link.token}`,
            validHours: EMAIL_CHANGE_TTL_HOURS,
          }),
          tx,
        );
        await mailer.send(
          accountMessages.emailChangeRequested({
            to: account.email,
            name: account.name,
            newEmail,
            accountUrl: `${deps.baseUrl}/account`,
          }),
          tx,
        );
      });
      return { email: newEmail, expiresAt };
    },

    /** The account's address change waiting for its confirmation, or null. */
    async pendingEmailChange(accountId: string) {
      const row = await links.pendingEmailChange(accountId, clock.now());
      return row ? { email: row.new_email, expiresAt: row.expires_at } : null;
    },

    /**
     * Opens a confirmation link: the account's sign-in address becomes the new one (409 if another
     * account took it meanwhile), and the previous address is told. Sessions stay: the password did
     * not change, and whoever opened the link controls the new address.
     */
    async confirmEmailChange(token: string, ip: string) {
      const change = await verifyLink("emailChange", token, ip, (id) => links.findEmailChange(id));
      const now = clock.now();
      if (change.used_at || change.expires_at <= now) throw invalidLink();
      return db.transaction().execute(async (tx) => {
        const used = await links.useEmailChange(change.id, now, tx);
        if (!used) throw invalidLink();
        const account = await accounts.findById(used.account_id, tx);
        if (!account) throw invalidLink();
        const other = await accounts.findByEmail(used.new_email, tx);
        if (other && other.id !== account.id)
          throw new AppError("CONFLICT", {
            message: "Another account signs in with this address now.",
            details: [{ field: "email", message: "is already registered" }],
          });
        const updated = await accounts.updateProfile(account.id, { email: used.new_email }, tx);
        if (!updated) throw invalidLink();
        if (account.email.toLowerCase() !== used.new_email.toLowerCase())
          await mailer.send(
            accountMessages.emailChanged({ to: account.email, name: account.name, newEmail: used.new_email }),
            tx,
          );
        return updated;
      });
    },

    /** Resolves when the reset requests answered so far have been handled (a clean stop, tests). */
    async idle() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
  };
}
export type AccountLinkService = ReturnType<typeof createAccountLinkService>;
