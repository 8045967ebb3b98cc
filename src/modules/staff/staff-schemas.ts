import Type from "typebox";
import {
  Email,
  INVITATION_TTL_DAYS,
  SECRET_PREFIX,
  StaffRoleSchema,
  StoreRoleSchema,
  Timestamp,
} from "../../contracts/index.ts";
import { Body, Id } from "../../lib/http/schemas.ts";

export const StaffMember = Type.Object(
  {
    accountId: Id("account"),
    name: Type.String(),
    email: Type.String(),
    role: StoreRoleSchema,
    since: {
      ...Timestamp,
      description: "When they joined the store (the owner: when the store was created).",
    },
  },
  { title: "StaffMember" },
);

export const StaffInvitation = Type.Object(
  {
    id: Id("invitation"),
    email: Type.String(),
    role: StaffRoleSchema,
    invitedBy: Type.Union([Type.String(), Type.Null()], {
      description: "The name of whoever sent it (null once their account is gone).",
    }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    expired: Type.Boolean({ description: "Past `expiresAt`: it can no longer be accepted; invite again." }),
  },
  { title: "StaffInvitation" },
);

export const StaffList = Type.Object(
  {
    members: Type.Array(StaffMember, { description: "The owner first, then the staff, oldest first." }),
    invitations: Type.Array(StaffInvitation, { description: "Open invitations, newest first." }),
  },
  { title: "StoreStaff" },
);

export const InviteBody = Body({ email: Email, role: StaffRoleSchema });
export const ChangeRoleBody = Body({ role: StaffRoleSchema });

export const InvitationSent = Type.Object(
  {
    invitation: StaffInvitation,
    acceptUrl: Type.String({
      description: `The link the e-mail carries (queued with the invitation, sent after it), shown only in this answer (only the token's hash is kept), to pass on yourself if the e-mail does not arrive. It works once, for the invited address, for ${INVITATION_TTL_DAYS} days.`,
    }),
  },
  { title: "InvitationSent" },
);

export const InvitationToken = Type.String({
  pattern: `^${SECRET_PREFIX.invitation}_[0-9A-Za-z]{20,80}$`,
  maxLength: 100,
  description: "The token from the invitation's link (after `#token=`).",
});
export const TokenBody = Body({ token: InvitationToken });

export const InvitationPreview = Type.Object(
  {
    storeName: Type.String(),
    email: Type.String({ description: "The address invited: accept it signed in with this address." }),
    role: StaffRoleSchema,
    invitedBy: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Timestamp,
  },
  { title: "InvitationPreview" },
);

export const InvitationAccepted = Type.Object(
  {
    store: Type.Object({ slug: Type.String(), name: Type.String() }),
    role: StaffRoleSchema,
  },
  { title: "InvitationAccepted" },
);

export const InvitationWithdrawn = Type.Object({ id: Id("invitation"), withdrawn: Type.Literal(true) });
export const StaffRemoved = Type.Object({
  accountId: Id("account"),
  removed: Type.Literal(true),
  signedOutSessions: Type.Integer({ description: "How many of their sessions ended." }),
});
