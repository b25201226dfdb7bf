import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** A person who signed in, keyed by their identity provider's issuer and subject. */
export interface User {
  id: number;
  email: string | null;
  name: string | null;
}

/**
 * The user an identity provider vouched for. No account is needed beforehand: the first sign-in
 * creates the user; later ones refresh the email and name the provider reports.
 */
export async function upsertUser(db: Kysely<DB>, identity: { issuer: string; subject: string; email: string | null; name: string | null }): Promise<User> {
  return db
    .insertInto('users')
    .values({ issuer: identity.issuer, subject: identity.subject, email: identity.email, name: identity.name, last_sign_in_at: sql<Date>`now()` })
    .onConflict((oc) =>
      oc.columns(['issuer', 'subject']).doUpdateSet({
        email: (eb) => eb.ref('excluded.email'),
        name: (eb) => eb.ref('excluded.name'),
        last_sign_in_at: sql<Date>`now()`,
      }),
    )
    .returning(['id', 'email', 'name'])
    .executeTakeFirstOrThrow();
}
