import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authorizationUrl, discover, REDIRECT_URI, registerClient } from '../helpers/oauth.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';

// The per-address limits of /oauth/register and /oauth/authorize tell an allowed caller what is
// left, with the same IETF RateLimit-Policy / RateLimit headers as the API's answers (a refusal's
// headers are tested with the limits themselves: registration.test.ts, limits.test.ts).

const REGISTER_LIMIT = 5;
const AUTHORIZE_LIMIT = 7;

/** The `r` (requests left) and `t` (seconds to the window's end) of a RateLimit header naming `policy`. */
function remaining(headers: Headers, policy: string): { r: number; t: number } {
  const match = new RegExp(`^"${policy.replace('.', '\\.')}";r=(\\d+);t=(\\d+)$`).exec(headers.get('ratelimit') ?? '');
  assert.ok(match, `RateLimit: ${headers.get('ratelimit')}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

function assertCountsDown(seen: Array<{ r: number; t: number }>, max: number): void {
  assert.deepEqual(seen.map((s) => s.r), seen.map((_, i) => max - 1 - i));
  for (const { t } of seen) assert.ok(t >= 1 && t <= 60, `t=${t}`);
  // One window: its end does not move while it lasts.
  assert.ok(seen.every((s, i) => i === 0 || s.t <= seen[i - 1]!.t));
}

for (const backend of BACKENDS) {
  describe(`RateLimit headers on allowed OAuth answers (${backend.name})`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url, { OAUTH_REGISTER_RATE_LIMIT: String(REGISTER_LIMIT), OAUTH_AUTHORIZE_RATE_LIMIT: String(AUTHORIZE_LIMIT) });
    });
    after(() => service?.close());

    test('each allowed registration says the policy and what is left of it', async () => {
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const reply = await fetch(`${service.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: `Header Agent ${i}`, redirect_uris: [REDIRECT_URI] }),
        });
        assert.equal(reply.status, 201, await reply.text());
        assert.equal(reply.headers.get('ratelimit-policy'), `"oauth.register";q=${REGISTER_LIMIT};w=60`);
        seen.push(remaining(reply.headers, 'oauth.register'));
      }
      assertCountsDown(seen, REGISTER_LIMIT);
    });

    test('each allowed authorization request says the policy and what is left of it', async () => {
      const client = await registerClient(await discover(service), { client_name: 'Header Reader' });
      const { url } = await authorizationUrl(service, client);
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const reply = await fetch(url, { redirect: 'manual' });
        assert.equal(reply.status, 303);
        assert.equal(reply.headers.get('ratelimit-policy'), `"oauth.authorize";q=${AUTHORIZE_LIMIT};w=60`);
        seen.push(remaining(reply.headers, 'oauth.authorize'));
      }
      assertCountsDown(seen, AUTHORIZE_LIMIT);
    });
  });
}
