import { listApiKeys, mintApiKey, revokeApiKey } from '../auth/api-keys.ts';
import { SCENARIOS, type Scenario } from '../jobs/types.ts';
import { output, UsageError, type Command } from './command.ts';
import { withDatabase } from './with-database.ts';

function scenarioList(raw: unknown): Scenario[] {
  const list = String(raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (list.length === 0 || bad.length) throw new UsageError(`--types must list some of ${SCENARIOS.join(',')}${bad.length ? ` (unknown: ${bad.join(',')})` : ''}`);
  return [...new Set(list)] as Scenario[];
}

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'mint an API key (the plaintext is printed once)',
  usage: 'concierge keys create --org NAME --types restaurant,hotel,flight,activity [--live] [--daily-limit N] [--json]',
  options: { org: { type: 'string' }, types: { type: 'string' }, live: { type: 'boolean' }, 'daily-limit': { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }) {
    const org = String(values.org ?? '').trim();
    if (!org) throw new UsageError('--org is required');
    const types = scenarioList(values.types);
    const limitRaw = values['daily-limit'];
    const dailyLimit = limitRaw === undefined ? null : Number(limitRaw);
    if (dailyLimit !== null && (!Number.isInteger(dailyLimit) || dailyLimit < 1)) throw new UsageError('--daily-limit must be a positive whole number');
    const { key, info } = await withDatabase((db) => mintApiKey(db, { organizationName: org, allowedJobTypes: types, live: values.live === true, dailyLimit }));
    output(values.json as boolean, { ...info, key }, `API key ${info.id} for ${org} (${info.mode}; ${types.join(', ')})\n\n  ${key}\n\nStore it now: it is shown once and cannot be recovered.`);
  },
};

export const keysList: Command = {
  name: 'keys list',
  summary: 'list API keys (never their secrets)',
  usage: 'concierge keys list [--json]',
  options: { json: { type: 'boolean' } },
  async run({ values }) {
    const keys = await withDatabase((db) => listApiKeys(db));
    const lines = keys.map((k) => `${String(k.id).padStart(4)}  ${k.prefix}…  ${k.organizationName}  [${k.allowedJobTypes.join(',')}]  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  last used ${k.lastUsedAt ?? 'never'}`);
    output(values.json as boolean, keys, lines.join('\n') || 'no API keys');
  },
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  summary: 'revoke an API key by id',
  usage: 'concierge keys revoke ID',
  async run({ positionals }) {
    const id = Number(positionals[0]);
    if (!Number.isSafeInteger(id) || id < 1) throw new UsageError('give the numeric key id (see keys list)');
    const revoked = await withDatabase((db) => revokeApiKey(db, id));
    if (!revoked) {
      process.stderr.write(`no active API key ${id}\n`);
      return 1;
    }
    process.stdout.write(`API key ${id} revoked\n`);
  },
};
