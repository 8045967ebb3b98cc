import Type, { type Static } from "typebox";
import { Email, Password, PersonName } from "../../contracts/index.ts";
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
        "A new sign-in address: send `currentPassword` with it (400 without, throttled like a sign-in when wrong).",
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
