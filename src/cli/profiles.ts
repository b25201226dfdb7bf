import { readFile } from 'node:fs/promises';
import { createProfile } from '../jobs/profiles.ts';
import { parseProfile } from '../jobs/schemas.ts';
import { output, UsageError, type Command } from './command.ts';
import { withDatabase } from './with-database.ts';

export const profilesCreate: Command = {
  name: 'profiles create',
  summary: "store a traveller profile for an organization's bookings (profileId)",
  usage: 'concierge profiles create --org NAME --json-file FILE [--json]',
  options: { org: { type: 'string' }, 'json-file': { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }) {
    const org = String(values.org ?? '').trim();
    if (!org) throw new UsageError('--org is required');
    if (!values['json-file']) throw new UsageError('--json-file is required');
    let body: unknown;
    try {
      body = JSON.parse(await readFile(String(values['json-file']), 'utf8'));
    } catch (error) {
      throw new UsageError(`cannot read a JSON profile from ${String(values['json-file'])}: ${(error as Error).message}`);
    }
    const parsed = parseProfile(body);
    if (!parsed.ok) throw new UsageError(`the profile is not valid:\n${parsed.issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`);
    const stored = await withDatabase((db) => createProfile(db, org, parsed.value));
    output(values.json as boolean, { profileId: stored.id, organizationName: org, createdAt: stored.createdAt }, `profile ${stored.id} stored for ${org}`);
  },
};
