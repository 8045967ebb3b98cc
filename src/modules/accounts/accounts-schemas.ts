import Type, { type Static } from "typebox";
import { Email, ID_PREFIX, Password, PersonName } from "../../contracts/index.ts";
import { Body, Id, Timestamp } from "../../lib/http/schemas.ts";

export const SignupBody = Body({
  email: Email,
  password: Password,
  name: PersonName,
});
export const ChangePasswordBody = Body({
  currentPassword: Type.String({ minLength: 1, maxLength: 200 }),
  newPassword: Password,
});
/** The account's own details: send only what changes. A new e-mail address needs the password. */
export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(PersonName),
    email: Type.Optional({
      ...Email,
      description:
        "A new sign-in address: send `currentPassword` with it (400 without, throttled like a sign-in when wrong). It takes effect once the link e-mailed to it is opened (`dashboardConfirmEmailChange`); the current address is told. Until then the answer's `pendingEmail` shows it.",
    }),
    currentPassword: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const LoginBody = Body({ email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) });

export type SignupInput = Static<typeof SignupBody>;
export type LoginInput = Static<typeof LoginBody>;
export type ChangePasswordInput = Static<typeof ChangePasswordBody>;
export type UpdateAccountInput = Static<typeof UpdateAccountBody>;

export const AccountResource = Type.Object(
  { id: Id("account"), email: Type.String(), name: Type.String(), createdAt: Timestamp },
  { title: "Account" },
);

export function toAccountResource(a: { id: string; email: string; name: string; created_at: Date }) {
  return { id: a.id, email: a.email, name: a.name, createdAt: a.created_at.toISOString() };
}

/** "Forgot password": the address to send a reset link to. */
export const RequestPasswordResetBody = Body({ email: Email });
const linkToken = (kind: "passwordReset" | "emailChange", what: string) =>
  Type.String({
    pattern: `^${ID_PREFIX[kind]}_[0-9A-Za-z]{22}\\.[0-9A-Za-z]{43}$`,
    maxLength: 80,
    description: `The secret of the ${what} link: what follows \`#token=\` in it.`,
  });
export const ResetPasswordBody = Body({
  token: linkToken("passwordReset", "password reset"),
  newPassword: Password,
});
export const ConfirmEmailChangeBody = Body({ token: linkToken("emailChange", "e-mail confirmation") });

/** The account as its own pages show it: with the new address waiting for its confirmation. */
export const AccountDetailsResource = Type.Object(
  {
    ...AccountResource.properties,
    pendingEmail: Type.Union(
      [
        Type.Object({
          email: Type.String(),
          expiresAt: Type.String({
            format: "date-time",
            description: "When the confirmation link stops working.",
          }),
        }),
        Type.Null(),
      ],
      {
        description: "A new sign-in address waiting for its confirmation (the link e-mailed to it), or null.",
      },
    ),
  },
  { title: "AccountDetails" },
);

export function toAccountDetails(
  a: { id: string; email: string; name: string; created_at: Date },
  pending: { email: string; expiresAt: Date } | null,
) {
  return {
    ...toAccountResource(a),
    pendingEmail: pending ? { email: pending.email, expiresAt: pending.expiresAt.toISOString() } : null,
  };
}
