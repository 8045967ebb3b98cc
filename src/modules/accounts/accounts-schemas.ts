import Type from "typebox";
import { Body, Id, Timestamp } from "../../lib/http/schemas.ts";

export const Email = Type.String({ format: "email", maxLength: 254, examples: ["merchant@example.com"] });
export const Password = Type.String({
  minLength: 10,
  maxLength: 200,
  description: "At least 10 characters.",
});

export const SignupBody = Body({
  email: Email,
  password: Password,
  name: Type.String({ minLength: 1, maxLength: 100, examples: ["Sara Merchant"] }),
});
export const LoginBody = Body({ email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) });

export const AccountResource = Type.Object(
  { id: Id("account"), email: Type.String(), name: Type.String(), createdAt: Timestamp },
  { title: "Account" },
);

export function toAccountResource(a: { id: string; email: string; name: string; created_at: Date }) {
  return { id: a.id, email: a.email, name: a.name, createdAt: a.created_at.toISOString() };
}
