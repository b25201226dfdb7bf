import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// Client ID Metadata Documents (src/oauth/client-documents.ts): a client whose client_id is the URL
// of its metadata document is kept in oauth_clients like any other, as registration
// 'metadata_document', with the time its fetched document stops being fresh (HTTP caching). In the
// database, so that every node uses (and refreshes) the same copy.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table oauth_clients drop constraint oauth_clients_registration_check;
    alter table oauth_clients add constraint oauth_clients_registration_check check (registration in ('dynamic', 'operator', 'metadata_document'));
    alter table oauth_clients add column metadata_expires_at timestamptz;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    delete from oauth_clients where registration = 'metadata_document';
    alter table oauth_clients drop column metadata_expires_at;
    alter table oauth_clients drop constraint oauth_clients_registration_check;
    alter table oauth_clients add constraint oauth_clients_registration_check check (registration in ('dynamic', 'operator'));
  `);
}
