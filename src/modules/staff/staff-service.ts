import {
  INVITATION_TTL_DAYS,
  MAX_STAFF_PER_STORE,
  STORE_ROLES,
  type StaffRole,
  StoreRole,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId, newSecretOf } from "../../lib/ids.ts";
import { isoString } from "../../lib/iso-string.ts";
import { type InvitationMessage, invitationMessage } from "./staff-invitation-message.ts";
import type { StaffRepo } from "./staff-repo.ts";

/** The signed-in person acting on the store's staff. */
export interface StaffActor {
  id: string;
  name: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const invitationGone = () =>
  new AppError("NOT_FOUND", {
    message:
      "This invitation does not exist, was already used, was withdrawn or has expired. Ask for a new one.",
  });

/**
 * A store's staff (issue 32, part 3): who works in it and with which role, invitations by e-mail,
 * role changes and removals. The rules an admin is held to (docs/decisions.md): nobody changes or
 * removes the owner, and nobody changes their own role or removes themselves here. Removing someone
 * ends every session of their account at once, in the removal's transaction.
 */
export function createStaffService(deps: {
  db: Db;
  repo: StaffRepo;
  clock: Clock;
  /** Ends every session of the account (a removed member is signed out everywhere at once). */
  endSessions(accountId: string, tx: Executor): Promise<number>;
  /** The page that accepts an invitation, for its token (`https://…/invitation#token=…`). */
  acceptUrl(token: string): string;
  /**
   * Queues the invitation's e-mail in the invitation's transaction (the mail component's
   * `mailer.send(message, tx)`: its outbox sends it after the commit, with retries).
   */
  send(message: InvitationMessage, tx: Executor): Promise<void>;
}) {
  const { db, repo, clock } = deps;

  /** The member to change or remove: never the owner, never oneself, and one of this store's. */
  async function changeable(store: Store, actor: StaffActor, accountId: string, what: string, tx: Executor) {
    if (accountId === store.owner_account_id)
      throw new AppError("FORBIDDEN", { message: `The store's owner cannot be ${what}.` });
    if (accountId === actor.id)
      throw new AppError("FORBIDDEN", {
        message: `You cannot be ${what} by yourself: ask the owner or another admin.`,
      });
    const member = await repo.member(store.id, accountId, tx);
    if (!member) throw notFound("Staff member");
    return member;
  }

  return {
    /** The owner, the members and the open invitations. */
    async list(store: Store) {
      const now = clock.now();
      const [owner, members, invitations] = await Promise.all([
        repo.owner(store.id),
        repo.members(store.id),
        repo.openInvitations(store.id),
      ]);
      return {
        members: [
          {
            accountId: owner.account_id,
            name: owner.name,
            email: owner.email,
            role: StoreRole.owner,
            since: isoString(owner.created_at),
          },
          ...members.map((m) => ({
            accountId: m.account_id,
            name: m.name,
            email: m.email,
            role: m.role,
            since: isoString(m.created_at),
          })),
        ],
        invitations: invitations.map((i) => ({
          id: i.id,
          email: i.email,
          role: i.role,
          invitedBy: i.invited_by_name,
          createdAt: isoString(i.created_at),
          expiresAt: isoString(i.expires_at),
          expired: i.expires_at.getTime() <= now.getTime(),
        })),
      };
    },

    /**
     * Invites `email` with `role`: a new single-use token (only its hash is kept), valid
     * INVITATION_TTL_DAYS, replacing any open invitation to the same address. The seat is reserved
     * under the store's staff lock, so a burst cannot pass MAX_STAFF_PER_STORE. The e-mail is
     * queued in the same transaction and leaves after the commit.
     */
    async invite(store: Store, actor: StaffActor, input: { email: string; role: StaffRole }) {
      const email = input.email.trim();
      const now = clock.now();
      const token = newSecretOf("invitation");
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS);
      const id = newId("invitation");
      const acceptUrl = deps.acceptUrl(token);
      await db.transaction().execute(async (tx) => {
        await repo.lockStaff(store.id, tx);
        const person = await repo.hasPerson(store.id, email, tx);
        if (person.owner || person.member)
          throw new AppError("CONFLICT", {
            message: person.owner
              ? "This is the store owner's address."
              : "This person already works in the store.",
            details: [{ field: "email", message: person.owner ? "is the owner's" : "is already a member" }],
          });
        await repo.deleteOpenInvitationTo(store.id, email, tx);
        if ((await repo.seatsTaken(store.id, now, tx)) >= MAX_STAFF_PER_STORE)
          throw new AppError("CONFLICT", {
            message: `A store has at most ${MAX_STAFF_PER_STORE} staff members and open invitations together. Remove someone or withdraw an invitation first.`,
          });
        await repo.insertInvitation(
          {
            store_id: store.id,
            id,
            email,
            role: input.role,
            token_hash: sha256Hex(token),
            invited_by: actor.id,
            created_at: now,
            expires_at: expiresAt,
          },
          tx,
        );
        await deps.send(
          invitationMessage({
            to: email,
            storeName: store.name,
            role: input.role,
            inviter: actor.name,
            acceptUrl,
            expiresAt,
          }),
          tx,
        );
      });
      return {
        invitation: {
          id,
          email,
          role: input.role,
          invitedBy: actor.name,
          createdAt: isoString(now),
          expiresAt: isoString(expiresAt),
          expired: false,
        },
        acceptUrl,
      };
    },

    async withdraw(store: Store, invitationId: string) {
      if (!(await repo.deleteOpenInvitation(store.id, invitationId))) throw notFound("Invitation");
    },

    async changeRole(store: Store, actor: StaffActor, accountId: string, role: StaffRole) {
      return db.transaction().execute(async (tx) => {
        await repo.lockStaff(store.id, tx);
        const member = await changeable(store, actor, accountId, "given another role", tx);
        if (member.role !== role) await repo.setRole(store.id, accountId, role, clock.now(), tx);
        return {
          accountId: member.account_id,
          name: member.name,
          email: member.email,
          role,
          since: isoString(member.created_at),
        };
      });
    },

    /** Removes the member and ends every session of their account, in one transaction. */
    async remove(store: Store, actor: StaffActor, accountId: string) {
      return db.transaction().execute(async (tx) => {
        await repo.lockStaff(store.id, tx);
        await changeable(store, actor, accountId, "removed", tx);
        await repo.deleteMember(store.id, accountId, tx);
        return { signedOutSessions: await deps.endSessions(accountId, tx) };
      });
    },

    /** What an invitation offers, for the page that accepts it (anyone holding the token may read it). */
    async lookup(token: string) {
      const row = await repo.findOpenByToken(sha256Hex(token));
      if (!row || row.expires_at.getTime() <= clock.now().getTime()) throw invitationGone();
      return {
        storeName: row.store_name,
        email: row.email,
        role: row.role,
        invitedBy: row.invited_by_name,
        expiresAt: isoString(row.expires_at),
      };
    },

    /**
     * Accepts an invitation for the signed-in account, whose e-mail address must be the invited
     * one: the token is used once (claim), and the account joins with the invited role.
     */
    async accept(account: { id: string; email: string }, token: string) {
      const now = clock.now();
      const tokenHash = sha256Hex(token);
      return db.transaction().execute(async (tx) => {
        const open = await repo.findOpenByToken(tokenHash, tx);
        if (!open || open.expires_at.getTime() <= now.getTime()) throw invitationGone();
        if (open.email.toLowerCase() !== account.email.toLowerCase())
          throw new AppError("FORBIDDEN", {
            message: `This invitation was sent to ${open.email}. Sign in with that address (or create an account with it) to accept it.`,
          });
        await repo.lockStaff(open.store_id, tx);
        const claimed = await repo.claim(tokenHash, account.id, now, tx);
        if (!claimed) throw invitationGone();
        const person = await repo.hasPerson(claimed.store_id, account.email, tx);
        if (person.owner || person.member)
          throw new AppError("CONFLICT", { message: "You already work in this store." });
        await repo.insertMember(
          {
            store_id: claimed.store_id,
            account_id: account.id,
            role: claimed.role,
            invited_by: claimed.invited_by,
            created_at: now,
          },
          tx,
        );
        return { store: { slug: open.store_slug, name: open.store_name }, role: claimed.role };
      });
    },
  };
}
export type StaffService = ReturnType<typeof createStaffService>;

/** The words of a role, for messages. */
export function roleLabel(role: StoreRole): string {
  return STORE_ROLES[role].label;
}
