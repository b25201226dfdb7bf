// The reference server for bench/oauth-token.ts (in lib/, so `npm run bench` does not run it as a
// benchmark): node-oidc-provider, configured to do the same
// refresh-token grant as the service (opaque tokens, rotation on every use, client_secret_basic,
// access tokens of one hour), with its default in-memory storage. It mints one refresh token per
// benchmark connection, prints {url, clientId, clientSecret, refreshTokens} as one JSON line, and
// serves until killed.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const count = Number(process.argv[2] ?? 32);
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const issuer = `http://127.0.0.1:${port}`;
const clientSecret = 'reference-client-secret-0123456789abcdef';
const provider = new Provider(issuer, {
  clients: [{ client_id: 'bench', client_secret: clientSecret, redirect_uris: ['https://bench.example/cb'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic' }],
  rotateRefreshToken: true,
  ttl: { AccessToken: 3600, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600 },
  async findAccount(_ctx: unknown, id: string) {
    return { accountId: id, claims: async () => ({ sub: id }) };
  },
});
server.on('request', provider.callback());
// Why a grant was refused (the response only says "grant request is invalid").
provider.on('grant.error', (...args: unknown[]) => {
  const error = args[1] as Error & { error_detail?: string };
  process.stderr.write(`oidc-provider refused a grant: ${error.message} (${error.error_detail ?? 'no detail'})\n`);
});

const client = await provider.Client.find('bench');
const refreshTokens: string[] = [];
for (let i = 0; i < count; i++) {
  const grant = new provider.Grant({ accountId: `user-${i}`, clientId: 'bench' });
  grant.addOIDCScope('offline_access');
  const grantId = await grant.save();
  const token = new provider.RefreshToken({ accountId: `user-${i}`, client, grantId, scope: 'offline_access', gty: 'authorization_code', iiat: Math.floor(Date.now() / 1000), rotations: 0 });
  refreshTokens.push(await token.save());
}
process.stdout.write(`${JSON.stringify({ url: issuer, clientId: 'bench', clientSecret, refreshTokens })}\n`);
