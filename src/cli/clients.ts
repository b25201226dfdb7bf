import { OAuthError } from '../oauth/errors.ts';
import { deleteClient, listClients, rotateClientSecret, clientInfo } from '../oauth/clients.ts';
import { createOperatorClient } from '../oauth/operator-clients.ts';
import { output, UsageError, type Command } from './command.ts';
import { withDatabase } from './with-database.ts';

export const clientsCreate: Command = {
  name: 'clients create',
  summary: 'mint a pre-registered OAuth client (the secret is printed once)',
  usage: 'concierge clients create --name NAME --redirect-uri URI [--redirect-uri URI…] [--client-uri URL] [--scope "book read"] [--public] [--json]',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'client-uri': { type: 'string' },
    scope: { type: 'string' },
    public: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run({ values }) {
    const name = String(values.name ?? '').trim();
    if (!name) throw new UsageError('--name is required');
    const redirectUris = (values['redirect-uri'] as string[] | undefined) ?? [];
    if (redirectUris.length === 0) throw new UsageError('give at least one --redirect-uri');
    let created;
    try {
      created = await withDatabase((db) =>
        createOperatorClient(db, {
          name,
          redirectUris,
          clientUri: values['client-uri'] as string | undefined,
          scope: values.scope as string | undefined,
          public: values.public === true,
        }),
      );
    } catch (error) {
      if (error instanceof OAuthError) throw new UsageError(error.message);
      throw error;
    }
    const { info, clientSecret } = created;
    const secretText = clientSecret ? `\n  client_secret  ${clientSecret}\n\nStore the secret now: it is shown once and cannot be recovered.` : '\n  (public client: no secret; PKCE protects its codes)';
    output(values.json as boolean, { ...info, ...(clientSecret ? { client_secret: clientSecret } : {}) }, `OAuth client for ${name}\n\n  client_id      ${info.client_id}${secretText}`);
  },
};

export const clientsList: Command = {
  name: 'clients list',
  summary: 'list OAuth clients (never their secrets)',
  usage: 'concierge clients list [--json]',
  options: { json: { type: 'boolean' } },
  async run({ values }) {
    const clients = await withDatabase((db) => listClients(db));
    const lines = clients.map(
      (c) => `${c.client_id}  ${c.registration.padEnd(8)}  ${c.token_endpoint_auth_method.padEnd(19)}  ${JSON.stringify(c.client_name ?? '')}  [${c.scope}]  ${c.redirect_uris.join(' ')}`,
    );
    output(values.json as boolean, clients, lines.join('\n') || 'no OAuth clients');
  },
};

export const clientsRotate: Command = {
  name: 'clients rotate',
  summary: 'issue a new secret for a client (the old one stops working at once)',
  usage: 'concierge clients rotate CLIENT_ID [--json]',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }) {
    const clientId = positionals[0];
    if (!clientId) throw new UsageError('give the client_id (see clients list)');
    const rotated = await withDatabase((db) => rotateClientSecret(db, clientId));
    if (!rotated) {
      process.stderr.write(`no confidential OAuth client ${clientId}\n`);
      return 1;
    }
    output(values.json as boolean, { ...clientInfo(rotated.client), client_secret: rotated.clientSecret }, `new secret for ${clientId}\n\n  client_secret  ${rotated.clientSecret}\n\nThe previous secret no longer works. Store this one now: it is shown once.`);
  },
};

export const clientsDelete: Command = {
  name: 'clients delete',
  summary: "delete a client with its grants and tokens (they stop working at once)",
  usage: 'concierge clients delete CLIENT_ID',
  async run({ positionals }) {
    const clientId = positionals[0];
    if (!clientId) throw new UsageError('give the client_id (see clients list)');
    const deleted = await withDatabase((db) => deleteClient(db, clientId));
    if (!deleted) {
      process.stderr.write(`no OAuth client ${clientId}\n`);
      return 1;
    }
    process.stdout.write(`OAuth client ${clientId} deleted\n`);
  },
};
