import { SECRET_PREFIX } from "../../contracts/index.ts";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import { newId, newSecretOf } from "../../lib/ids.ts";
import type { CredentialGuard } from "../../lib/rate-limit/limiters.ts";
import type { AccountLinkService } from "./account-links-service.ts";
import type { AccountRepo } from "./accounts-repo.ts";
import type { ChangePasswordInput, LoginInput, SignupInput, UpdateAccountInput } from "./accounts-schemas.ts";
import type { DeviceCookies } from "./device-cookie.ts";
import type { PasswordHashing } from "./password.ts";

export type SessionAccount = { id: string; email: string; name: string; created_at: Date };

export function createAccountService(deps: {
  repo: AccountRepo;
  clock: Clock;
  sessionTtlSeconds: number;
  /**
   * Failed logins per e-mail address and per client IP from browsers the account has not signed in
   * from, and per device cookie from those it has.
   */
  guard: CredentialGuard;
  devices: DeviceCookies;
  passwords: PasswordHashing;
  /** A new sign-in address is confirmed by e-mail first (account-links-service.ts). */
  emailChanges: Pick<AccountLinkService, "startEmailChange" | "pendingEmailChange">;
}) {
  const { repo, clock, passwords } = deps;

  async function startSession(accountId: string) {
    const token = newSecretOf("session");
    const expiresAt = new Date(clock.now().getTime() + deps.sessionTtlSeconds * 1000);
    await repo.insertSession({ token_hash: sha256Hex(token), account_id: accountId, expires_at: expiresAt });
    return { token, expiresAt };
  }

  return {
    async signup(input: SignupInput) {
      if (await repo.findByEmail(input.email)) {
        throw new AppError("CONFLICT", {
          message: "An account with this e-mail address already exists.",
          details: [{ field: "email", message: "is already registered" }],
        });
      }
      const account = await repo.insert({
        id: newId("account"),
        email: input.email.trim(),
        name: input.name.trim(),
        password_hash: await passwords.hash(input.password),
        created_at: clock.now(),
      });
      // The browser that created the account is one it has signed in from.
      return { account, session: await startSession(account.id), device: deps.devices.issue(account) };
    },

    /**
     * Signs in. `deviceCookie` is the browser's device cookie, if any: when it is one this platform
     * issued for this account, the attempt is that device's (its own failure bucket, no e-mail or
     * IP lockout), so guessing against the e-mail elsewhere never locks the merchant out of a
     * browser they have used before. Every success issues a new device cookie.
     */
    async login(input: LoginInput, ip: string, deviceCookie?: string) {
      const account = await repo.findByEmail(input.email);
      const device = account ? deps.devices.trustedDevice(deviceCookie, account) : null;
      // A success does not clear the e-mail's failures (no clearOnSuccess): that would hand whoever
      // is guessing a fresh budget each time the merchant signs in. They age out of the window.
      const signedIn = await deps.guard.verify(
        device ? { id: device, ip: null } : { id: `login:${input.email.toLowerCase()}`, ip },
        async () => {
          const hash = account?.password_hash ?? (await passwords.dummyHash());
          return (await passwords.verify(hash, input.password)) ? account : undefined;
        },
        () => new AppError("INVALID_CREDENTIALS", { message: "The e-mail address or password is wrong." }),
      );
      return {
        account: signedIn,
        session: await startSession(signedIn.id),
        // At the epoch read with the password hash it verified: if the password changed meanwhile,
        // this cookie is already untrusted, as it should be.
        device: deps.devices.issue(signedIn),
      };
    },

    async logout(token: string) {
      await repo.deleteSession(sha256Hex(token));
    },

    /**
     * Ends every session of the account, this browser's too (a lost laptop, a shared computer),
     * and the trust of every device cookie: the next sign-in from any browser is a new browser's,
     * under the e-mail's and the address's lockout. Answers how many sessions ended.
     */
    async logoutEverywhere(accountId: string) {
      await repo.endDeviceTrust(accountId);
      return repo.deleteSessionsOf(accountId, null);
    },

    /**
     * Changes the password after checking the current one (throttled like a sign-in, per account),
     * and signs out every other session: whoever knew the old password is out. Every device cookie
     * stops being trusted (a stolen device must stop counting exactly now), and this browser, which
     * just proved the password, gets a fresh one. The session that asked stays signed in. Answers
     * how many other sessions ended, and the new device cookie.
     */
    async changePassword(accountId: string, input: ChangePasswordInput, sessionToken: string) {
      const account = await repo.findById(accountId);
      if (!account) throw new AppError("UNAUTHENTICATED");
      await deps.guard.verify(
        { id: `password-change:${accountId}`, ip: null },
        async () =>
          (await passwords.verify(account.password_hash, input.currentPassword)) ? account : undefined,
        () =>
          new AppError("VALIDATION_FAILED", {
            message: "The current password is wrong.",
            details: [{ field: "currentPassword", message: "is not your current password" }],
          }),
      );
      if (input.newPassword === input.currentPassword) {
        throw new AppError("VALIDATION_FAILED", {
          message: "The new password is the current one.",
          details: [{ field: "newPassword", message: "must differ from the current password" }],
        });
      }
      const epoch = await repo.setPasswordHash(accountId, await passwords.hash(input.newPassword));
      if (epoch === undefined) throw new AppError("UNAUTHENTICATED");
      return {
        signedOutSessions: await repo.deleteSessionsOf(accountId, sha256Hex(sessionToken)),
        device: deps.devices.issue({ id: accountId, device_epoch: epoch }),
      };
    },

    /**
     * Changes the account's name, and asks for a new e-mail address. A new address (the sign-in
     * identifier) needs the current password, checked and throttled like a password change: a
     * session left open on a shared computer must not be enough to take the account over. Another
     * account's address is a 409. The address itself changes only once the link e-mailed to it is
     * opened (and the current address is told): answers the account as it is and the change
     * waiting for its confirmation. Sessions and trusted browsers stay.
     */
    async updateProfile(accountId: string, input: UpdateAccountInput) {
      const account = await repo.findById(accountId);
      if (!account) throw new AppError("UNAUTHENTICATED");
      const changes: { name?: string } = {};
      let newEmail: string | null = null;
      if (input.name !== undefined) {
        const name = input.name.trim();
        if (!name)
          throw new AppError("VALIDATION_FAILED", { details: [{ field: "name", message: "is required" }] });
        if (name !== account.name) changes.name = name;
      }
      if (input.email !== undefined) {
        const email = input.email.trim();
        if (email !== account.email) {
          if (!input.currentPassword) {
            throw new AppError("VALIDATION_FAILED", {
              message: "Confirm a new e-mail address with your password.",
              details: [{ field: "currentPassword", message: "is required to change the e-mail address" }],
            });
          }
          const password = input.currentPassword;
          await deps.guard.verify(
            { id: `password-change:${accountId}`, ip: null },
            async () => ((await passwords.verify(account.password_hash, password)) ? account : undefined),
            () =>
              new AppError("VALIDATION_FAILED", {
                message: "The current password is wrong.",
                details: [{ field: "currentPassword", message: "is not your current password" }],
              }),
          );
          const other = await repo.findByEmail(email);
          if (other && other.id !== accountId) {
            throw new AppError("CONFLICT", {
              message: "Another account uses this e-mail address.",
              details: [{ field: "email", message: "is already registered" }],
            });
          }
          newEmail = email;
        }
      }
      let updated = account;
      if (Object.keys(changes).length > 0) {
        const row = await repo.updateProfile(accountId, changes);
        if (!row) throw new AppError("UNAUTHENTICATED");
        updated = row;
      }
      const pendingEmail = newEmail
        ? await deps.emailChanges.startEmailChange(updated, newEmail)
        : await deps.emailChanges.pendingEmailChange(accountId);
      return { account: updated, pendingEmail };
    },

    /** The address change of the account waiting for its confirmation, or null. */
    pendingEmailChange(accountId: string) {
      return deps.emailChanges.pendingEmailChange(accountId);
    },

    /** The account of a session cookie value, or null when it is unknown or expired. */
    async authenticate(token: string): Promise<SessionAccount | null> {
      if (!token.startsWith(`${SECRET_PREFIX.session}_`) || token.length > 100) return null;
      const row = await repo.findSessionAccount(sha256Hex(token), clock.now());
      return row ? { id: row.id, email: row.email, name: row.name, created_at: row.created_at } : null;
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
