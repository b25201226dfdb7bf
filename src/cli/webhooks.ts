import { loadConfig } from '../config.ts';
import { resolveSecretKey } from '../jobs/handoff-tokens.ts';
import { DomainError } from '../jobs/types.ts';
import { createEndpoint, listEndpoints, removeEndpoint } from '../webhooks/endpoints.ts';
import { output, UsageError, type Command } from './command.ts';
import { withDatabase } from './with-database.ts';

// The operator's side of an organisation's webhook endpoints (the organisation's own is REST
// /api/v1/webhook-endpoints): the same core functions, the same rules.

function orgOf(values: Record<string, unknown>): string {
  const org = String(values.org ?? '').trim();
  if (!org) throw new UsageError('--org is required');
  return org;
}

/** A refusal of the core (a URL that may not be used, an unknown id) as a usage error, in its words. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) {
      const details = Array.isArray(error.details) ? (error.details as Array<{ path: string; message: string }>).map((d) => `  ${d.message}`).join('\n') : '';
      throw new UsageError(details ? `${error.message}:\n${details}` : error.message);
    }
    throw error;
  }
}

export const webhooksAdd: Command = {
  name: 'webhooks add',
  summary: "register a webhook endpoint for an organisation's job events (the signing secret is printed once)",
  usage: 'concierge webhooks add --org NAME --url URL [--json]',
  options: { org: { type: 'string' }, url: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }) {
    const org = orgOf(values);
    if (!values.url) throw new UsageError('--url is required');
    const config = loadConfig();
    const { endpoint, secret } = await refusing(() =>
      withDatabase(async (db) =>
        createEndpoint({ db, secretKey: await resolveSecretKey(db, config.SECRET_KEY), allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, overlapSeconds: config.WEBHOOK_SECRET_OVERLAP_SECONDS }, org, { url: values.url }),
      ),
    );
    output(values.json as boolean, { ...endpoint, organizationName: org, secret }, `webhook endpoint ${endpoint.id} for ${org}: ${endpoint.url}\n\n  ${secret}\n\nStore the signing secret now: it is shown once.`);
  },
};

export const webhooksList: Command = {
  name: 'webhooks list',
  summary: "list an organisation's webhook endpoints (never their secrets)",
  usage: 'concierge webhooks list --org NAME [--json]',
  options: { org: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }) {
    const org = orgOf(values);
    const endpoints = await withDatabase((db) => listEndpoints(db, org));
    const lines = endpoints.map((e) => `${e.id}  ${e.status}${e.disabledReason ? ` (${e.disabledReason})` : ''}  ${e.url}`);
    output(values.json as boolean, endpoints, lines.join('\n') || `no webhook endpoints for ${org}`);
  },
};

export const webhooksRemove: Command = {
  name: 'webhooks remove',
  summary: 'remove a webhook endpoint by id',
  usage: 'concierge webhooks remove --org NAME ID',
  options: { org: { type: 'string' } },
  async run({ values, positionals }) {
    const org = orgOf(values);
    const id = String(positionals[0] ?? '');
    if (!id) throw new UsageError('give the endpoint id (see webhooks list)');
    try {
      await withDatabase((db) => removeEndpoint(db, org, id));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'webhook_endpoint_not_found') {
        process.stderr.write(`no webhook endpoint ${id} for ${org}\n`);
        return 1;
      }
      throw error;
    }
    process.stdout.write(`webhook endpoint ${id} removed\n`);
  },
};
