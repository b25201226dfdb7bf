// Who may use the operator console: a signed-in person whose email is listed in OPERATOR_EMAILS.
// The list is lower-cased when the configuration is read (config.ts); the email the identity
// provider reported is lower-cased here, so "Ops@Example.com" and "ops@example.com" are one person.

export interface Operator {
  userId: number;
  email: string;
}

/** The operator a signed-in user is, or null (no email, or an email not on the list). */
export function operatorOf(operatorEmails: readonly string[], user: { id: number; email: string | null }): Operator | null {
  const email = user.email?.trim().toLowerCase();
  if (!email || !operatorEmails.includes(email)) return null;
  return { userId: Number(user.id), email };
}
