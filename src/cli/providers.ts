import { loadConfig } from '../config.ts';
import { SCENARIOS } from '../jobs/types.ts';
import { builtInsExist, DRIVER_IDS } from '../providers/registry.ts';
import { checkNewProvider, insertProvider, listProviders, ProviderInputError, providerAddressPolicy, removeProvider, type ProviderView } from '../providers/store.ts';
import { output, UsageError, type Command } from './command.ts';
import { withDatabase } from './with-database.ts';

function describe(p: ProviderView): string {
  const where = p.startUrl ?? '(built-in, at PROVIDER_URL_TEMPLATE)';
  return `${p.id.padEnd(16)} ${p.scenario.padEnd(10)} ${p.mode.padEnd(4)}  priority ${String(p.priority).padEnd(5)} ${p.driver.padEnd(10)} ${p.name}  ${where}`;
}

export const providersAdd: Command = {
  name: 'providers add',
  summary: 'register a provider website (used from the next job on)',
  usage: [
    `concierge providers add --id ID --name NAME --scenario ${SCENARIOS.join('|')} --url START_URL [--driver ${DRIVER_IDS[0]}|<built-in id>] [--priority N] [--mode test|live] [--json]`,
    '',
    '  --id        2 to 40 lower-case letters, digits and hyphens (like acme-tables); not a built-in id',
    '  --url       the http(s) page a booking starts from; in production it must not be (or resolve to) a',
    '              loopback or private address unless PROVIDER_ALLOW_PRIVATE_ADDRESSES=true',
    `  --driver    generic (default) or a built-in scripted driver: ${DRIVER_IDS.slice(1).join(', ')}`,
    '  --priority  lower goes first (default 100; the built-in first choices rank 100, second choices 200)',
    '  --mode      live (default): booked by live keys (svk_live_); test: booked by test keys (svk_test_)',
  ].join('\n'),
  options: { id: { type: 'string' }, name: { type: 'string' }, scenario: { type: 'string' }, url: { type: 'string' }, driver: { type: 'string' }, priority: { type: 'string' }, mode: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }) {
    for (const flag of ['id', 'name', 'scenario', 'url']) if (typeof values[flag] !== 'string') throw new UsageError(`--${flag} is required`);
    const priorityRaw = values.priority as string | undefined;
    const priority = priorityRaw === undefined ? undefined : /^\d+$/.test(priorityRaw.trim()) ? Number(priorityRaw) : NaN;
    const input = { id: values.id as string, name: values.name as string, scenario: values.scenario as string, startUrl: values.url as string, driver: values.driver as string | undefined, priority, mode: values.mode as string | undefined };
    try {
      // Checked before the database is opened: a refused provider costs no connection and writes nothing.
      const checked = await checkNewProvider(input, providerAddressPolicy(loadConfig()));
      const provider = await withDatabase((db) => insertProvider(db, checked));
      output(values.json as boolean, provider, `provider ${provider.id} registered (${provider.name}, ${provider.scenario}, ${provider.mode}, priority ${provider.priority}, driver ${provider.driver}) at ${provider.startUrl}\nIt takes part in ${provider.scenario} jobs from the next job on.`);
    } catch (error) {
      if (error instanceof ProviderInputError) throw new UsageError(error.message);
      throw error;
    }
  },
};

export const providersList: Command = {
  name: 'providers list',
  summary: 'list the providers, built-in and registered, in chain order',
  usage: 'concierge providers list [--json]',
  options: { json: { type: 'boolean' } },
  async run({ values }) {
    const providers = await withDatabase((db, config) => listProviders(db, { builtIns: builtInsExist(config.NODE_ENV) }));
    output(values.json as boolean, providers, providers.map(describe).join('\n'));
  },
};

export const providersRemove: Command = {
  name: 'providers remove',
  summary: 'remove a registered provider (from the next job on)',
  usage: 'concierge providers remove ID',
  async run({ positionals }) {
    const id = positionals[0]?.trim();
    if (!id) throw new UsageError('give the provider id (see providers list)');
    const result = await withDatabase((db) => removeProvider(db, id));
    if (result === 'built_in') throw new UsageError(`${id} is a built-in provider: it cannot be removed (block it per job with consent.blockedProviders)`);
    if (result === 'unknown') {
      process.stderr.write(`no registered provider ${id}\n`);
      return 1;
    }
    process.stdout.write(`provider ${id} removed; jobs from the next one on no longer use it\n`);
  },
};
