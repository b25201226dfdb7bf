import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { sha256 } from '../../src/security/secrets.ts';

// POST /oauth/register (RFC 7591) as clients call it: every rule of the contract, on every backend.

const register = (service: TestService, body: unknown) => call(service.url, 'POST', '/oauth/register', { body });
const valid = { client_name: 'Trip Planner', client_uri: 'https://planner.example', redirect_uris: ['https://planner.example/cb'] };

for (const backend of BACKENDS) {
  describe(`POST /oauth/register on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service?.close());

    test('201 with every field of the client table; the secret is shown once and stored only as its SHA-256', async () => {
      const reply = await register(service, { ...valid, scope: 'read book' });
      assert.equal(reply.status, 201);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      const client = reply.body;
      assert.match(client.client_id, /^dcr_[A-Za-z0-9_-]{20,}$/);
      assert.match(client.client_secret, /^ccs_[A-Za-z0-9_-]{43}$/);
      assert.equal(client.client_secret_expires_at, 0);
      assert.deepEqual(client.redirect_uris, valid.redirect_uris);
      assert.equal(client.client_name, 'Trip Planner');
      assert.equal(client.client_uri, 'https://planner.example');
      assert.deepEqual(client.grant_types, ['authorization_code', 'refresh_token']);
      assert.deepEqual(client.response_types, ['code']);
      assert.equal(client.token_endpoint_auth_method, 'client_secret_basic');
      assert.equal(client.scope, 'book read');
      assert.equal(typeof client.client_id_issued_at, 'number');
      const row = await service.services.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', client.client_id).executeTakeFirstOrThrow();
      assert.equal(row.secret_hash, sha256(client.client_secret));
      assert.doesNotMatch(JSON.stringify(row), new RegExp(client.client_secret));
    });

    test('granted scope = requested ∩ "book read"; all of it when none is requested; nothing in common is refused', async () => {
      assert.equal((await register(service, { ...valid, scope: 'read admin openid' })).body.scope, 'read');
      assert.equal((await register(service, { ...valid, scope: 'book+read' })).body.scope, 'book read');
      assert.equal((await register(service, valid)).body.scope, 'book read');
      const none = await register(service, { ...valid, scope: 'admin' });
      assert.equal(none.status, 400);
      assert.equal(none.body.error, 'invalid_client_metadata');
      assert.match(none.body.error_description, /^scope:/);
    });

    test('token_endpoint_auth_method: basic (default), post, and none (a public client gets no secret)', async () => {
      const post = await register(service, { ...valid, token_endpoint_auth_method: 'client_secret_post' });
      assert.equal(post.body.token_endpoint_auth_method, 'client_secret_post');
      assert.ok(post.body.client_secret);
      const pub = await register(service, { ...valid, token_endpoint_auth_method: 'none' });
      assert.equal(pub.status, 201);
      assert.equal(pub.body.token_endpoint_auth_method, 'none');
      assert.equal('client_secret' in pub.body, false);
      const bad = await register(service, { ...valid, token_endpoint_auth_method: 'private_key_jwt' });
      assert.equal(bad.body.error, 'invalid_client_metadata');
      assert.match(bad.body.error_description, /^token_endpoint_auth_method:/);
    });

    test('redirect_uris: required, non-empty, https or http on localhost / 127.0.0.1 only', async () => {
      const accepted = [
        'https://app.example/cb',
        'https://app.example:8443/oauth/cb?x=1',
        'http://localhost/cb',
        'http://localhost:6274/oauth/callback',
        'http://127.0.0.1:33418/',
        'http://127.0.0.1/cb',
        // Loopback without a path, as VS Code registers it; a query may follow the host directly.
        'http://127.0.0.1:33418',
        'http://127.0.0.1',
        'http://localhost',
        'http://localhost:33418',
        'http://localhost?x=1',
        'http://127.0.0.1:8080?x=1',
      ];
      for (const uri of accepted) assert.equal((await register(service, { ...valid, redirect_uris: [uri] })).status, 201, uri);
      const refused: unknown[] = [
        'http://app.example/cb',
        'http://localhost.evil.example/cb',
        'http://127.0.0.1.nip.io/cb',
        'http://10.0.0.1/cb',
        'http://[::1]/cb',
        // Loopback spellings a URL parser reads as 127.0.0.1 or localhost: only the two exact forms are loopback.
        'http://127.1/cb',
        'http://0x7f.0.0.1/cb',
        'http://2130706433/cb',
        'http://127.0.0.01/cb',
        'http://LOCALHOST/cb',
        'http://Localhost:8080/cb',
        'http://%6cocalhost/cb',
        'http://localhost./cb',
        'http://[::1]:8080/cb',
        // Without a path, the host still has to end where the URI does.
        'http://localhost.evil.example',
        'http://127.0.0.1.nip.io',
        'http://localhost:',
        'http://localhost:8080@evil.example',
        'http://127.0.0.1:8080%2fcb',
        'http://localhost:99999',
        'https://app.example/cb#fragment',
        'https://app.example/cb#',
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        ' javascript:alert(1)',
        'java\tscript:alert(1)',
        'data:text/html,<script>alert(1)</script>',
        'DATA:text/html,x',
        'https://user:pass@app.example/cb',
        'https://user@app.example/cb',
        'http://localhost@evil.example/cb',
        'https://*.app.example/cb',
        'https://app.example/*',
        '/relative/cb',
        '//app.example/cb',
        'app.example/cb',
        'https:/app.example/cb',
        'https:\\\\app.example\\cb',
        'HTTPS://app.example/cb',
        'https://app.example/cb ',
        'https://app.example/c b',
        'ftp://app.example/cb',
        'custom-scheme://cb',
        '',
        42,
      ];
      for (const uri of refused) {
        const reply = await register(service, { ...valid, redirect_uris: [uri] });
        assert.equal(reply.status, 400, String(uri));
        assert.equal(reply.body.error, 'invalid_redirect_uri', String(uri));
      }
      for (const body of [{ client_name: 'x' }, { ...valid, redirect_uris: [] }, { ...valid, redirect_uris: 'https://app.example/cb' }]) {
        const reply = await register(service, body);
        assert.equal(reply.status, 400);
        assert.equal(reply.body.error, 'invalid_redirect_uri');
      }
      // One bad URI among good ones refuses the whole registration.
      const mixed = await register(service, { ...valid, redirect_uris: ['https://app.example/cb', 'http://evil.example/cb'] });
      assert.equal(mixed.body.error, 'invalid_redirect_uri');
    });

    test('a redirect URI outside printable ASCII is refused: percent-encoded paths and punycode hosts register', async () => {
      // Such a URI would be sent back raw in a Location header, which cannot carry it: an approved
      // request's code would be stored and never delivered.
      for (const uri of ['https://app.example/\u56de\u8c03', 'https://b\u00fccher.example/cb', 'https://app.example/caf\u00e9', 'https://app.example/cb?q=\u00ff', 'http://127.0.0.1:8976/\u56de\u8c03', 'https://\u0430pp.example/cb']) {
        const reply = await register(service, { ...valid, redirect_uris: [uri] });
        assert.equal(reply.status, 400, uri);
        assert.equal(reply.body.error, 'invalid_redirect_uri', uri);
        assert.match(reply.body.error_description, /must be printable ASCII: percent-encode .* punycode/, uri);
      }
      const nonAsciiSite = await register(service, { ...valid, client_uri: 'https://b\u00fccher.example/' });
      assert.equal(nonAsciiSite.body.error, 'invalid_client_metadata');
      assert.match(nonAsciiSite.body.error_description, /^client_uri: .*punycode/);
      for (const uri of ['https://app.example/%E5%9B%9E%E8%B0%83', 'https://xn--bcher-kva.example/cb', 'https://app.example/cb?q=%C3%BF']) {
        const reply = await register(service, { ...valid, redirect_uris: [uri] });
        assert.equal(reply.status, 201, uri);
        assert.deepEqual(reply.body.redirect_uris, [uri]);
      }
    });

    test('the registrations real MCP clients send are accepted as they are', async () => {
      // Bodies as each client sends them (its source or its requests as seen by servers); none of
      // them is altered to suit this service.
      const clients: Array<[string, Record<string, unknown>]> = [
        [
          // `claude mcp add --transport http concierge <url>` (docs/mcp.md): named after the server.
          'Claude Code',
          { client_name: 'Claude Code (concierge)', redirect_uris: ['http://localhost:54212/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
        ],
        [
          'Claude Code, with a scope',
          { client_name: 'Claude Code (concierge)', redirect_uris: ['http://localhost:61523/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'book read' },
        ],
        [
          // VS Code: grant types filtered by the server's grant_types_supported.
          'VS Code',
          {
            client_name: 'Visual Studio Code',
            client_uri: 'https://code.visualstudio.com',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            redirect_uris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'],
            scope: 'book read',
            token_endpoint_auth_method: 'none',
            application_type: 'native',
          },
        ],
        [
          // Later VS Code releases: localhost too, and no path after the port.
          'VS Code, loopback without a path',
          {
            client_name: 'Visual Studio Code - Insiders',
            client_uri: 'https://code.visualstudio.com',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            redirect_uris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://localhost', 'http://127.0.0.1', 'http://localhost:33418', 'http://127.0.0.1:33418'],
            token_endpoint_auth_method: 'none',
            application_type: 'native',
          },
        ],
        [
          'MCP Inspector',
          { redirect_uris: ['http://localhost:6274/oauth/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], client_name: 'MCP Inspector', client_uri: 'https://github.com/modelcontextprotocol/inspector' },
        ],
        [
          'MCP Inspector, OAuth debugger',
          { redirect_uris: ['http://localhost:6274/oauth/callback/debug'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], client_name: 'MCP Inspector', client_uri: 'https://github.com/modelcontextprotocol/inspector' },
        ],
      ];
      for (const [label, body] of clients) {
        const reply = await register(service, body);
        assert.equal(reply.status, 201, `${label}: ${JSON.stringify(reply.body)}`);
        assert.equal(reply.body.client_name, body.client_name, label);
        assert.deepEqual(reply.body.redirect_uris, body.redirect_uris, label);
        assert.equal(reply.body.token_endpoint_auth_method, 'none', label);
        assert.equal('client_secret' in reply.body, false, label);
      }
      // The service's own name with a loopback redirect is that of a native client connecting to
      // it; anywhere else it is still refused.
      const remote = await register(service, { client_name: 'Claude Code (concierge)', redirect_uris: ['https://concierge-helper.example/callback'], token_endpoint_auth_method: 'none' });
      assert.equal(remote.body.error, 'invalid_client_metadata');
      assert.match(remote.body.error_description, /^client_name: names the protected brand "Concierge"/);
    });

    test('a protected brand in client_name is refused unless every redirect URI is on its verified domains', async () => {
      const refused = ['Google Calendar', 'G00gle', 'G o o g l e', 'gооgle' /* Cyrillic o */, 'Goo\u200bgle', 'ＧＯＯＧＬＥ', 'Micro-soft Teams', 'rnicrosoft', 'OpenAI helper', 'Chat GPT', 'Anthropic', 'Claude', 'C1aude', 'Concierge', 'C0NC13RGE Pro', 'Apple Maps', 'Amazon', 'Meta AI', 'Facebook', 'VS Code', 'MetaAI Assistant', 'AWSConsole', 'myAWS', 'AWS2', 'Meta4U', '\uff2d\uff45\uff54\uff41\uff21\uff29'];
      for (const name of refused) {
        const reply = await register(service, { ...valid, client_name: name });
        assert.equal(reply.status, 400, name);
        assert.equal(reply.body.error, 'invalid_client_metadata', name);
        assert.match(reply.body.error_description, /^client_name:/);
      }
      const verified: Array<[string, string[]]> = [
        ['Claude', ['https://claude.ai/api/mcp/auth_callback']],
        ['Claude', ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback']],
        ['ChatGPT', ['https://chatgpt.com/connector_platform_oauth_redirect']],
        ['Google Gemini', ['https://gemini.google.com/cb']],
        ['VS Code', ['https://vscode.dev/redirect']],
        // The registrations VS Code and Claude Code really send: loopback counts for brands with native apps.
        ['Visual Studio Code', ['https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/']],
        ['Claude Code', ['http://localhost:54212/callback']],
        // The service's own name: native clients are named after the server they connect to.
        ['Concierge', ['http://127.0.0.1:33418/']],
        ['Claude Code (concierge)', ['http://localhost:54212/callback']],
      ];
      for (const [name, uris] of verified) assert.equal((await register(service, { ...valid, client_name: name, redirect_uris: uris })).status, 201, name);
      const unverified: Array<[string, string[]]> = [
        ['Claude', ['https://claude.ai.evil.example/cb']],
        ['Claude', ['https://claude.ai/cb', 'https://evil.example/cb']],
        ['VS Code', ['http://127.0.0.1:33418/', 'https://evil.example/cb']],
        ['ChatGPT', ['http://localhost/cb']],
        ['Concierge', ['https://evil.example/cb']],
        ['Claude Code (concierge)', ['http://localhost:54212/callback', 'https://claude.ai/cb']],
        ['ChatGPT', ['https://claude.ai/cb']],
      ];
      for (const [name, uris] of unverified) assert.equal((await register(service, { ...valid, client_name: name, redirect_uris: uris })).body.error, 'invalid_client_metadata', `${name} ${uris}`);
      // Ordinary names, including ones that merely contain a short brand's letters, are fine.
      for (const name of ['Trip Planner', 'Metadata Explorer', 'Cloud Desktop', 'Laws helper', 'Metallica Fans', 'Jaws Trivia']) assert.equal((await register(service, { ...valid, client_name: name })).status, 201, name);
    });

    test('a client_uri on a protected brand\'s domains needs every redirect URI where that brand is verified', async () => {
      const refused: Array<[string, string[]]> = [
        ['https://claude.ai', ['https://trip-helper.example/cb']],
        ['https://www.claude.ai/download', ['https://trip-helper.example/cb']],
        ['https://chatgpt.com/', ['http://localhost:8080/cb']],
        ['https://claude.ai', ['https://claude.ai/cb', 'https://trip-helper.example/cb']],
        [`https://${new URL(service.config.BASE_URL).hostname}/`, ['https://trip-helper.example/cb']],
        // The service's own origin as it is in development (loopback http), refused like the https form.
        [new URL(service.config.BASE_URL).origin, ['https://trip-helper.example/cb']],
        [`${service.config.BASE_URL}/developers/connected-apps`, ['https://trip-helper.example/cb']],
        ['https://www.apple.com/', ['https://trip-helper.example/cb']],
        // github.com itself is a brand's site (GitHub, Copilot): a repository page there needs a
        // redirect URI one of them vouches for; a web app should name its own site.
        ['https://github.com/trip-helper/trip-helper', ['https://trip-helper.example/cb']],
      ];
      for (const [clientUri, uris] of refused) {
        const reply = await register(service, { client_name: 'Trip Helper', client_uri: clientUri, redirect_uris: uris });
        assert.equal(reply.status, 400, clientUri);
        assert.equal(reply.body.error, 'invalid_client_metadata', clientUri);
        assert.match(reply.body.error_description, /^client_uri: is on the verified domains of the protected brand/, clientUri);
      }
      const accepted: Array<[string, string[]]> = [
        ['https://claude.ai', ['https://claude.ai/api/mcp/auth_callback']],
        ['https://claude.ai.trip-helper.example', ['https://trip-helper.example/cb']],
        ['https://trip-helper.example', ['https://trip-helper.example/cb']],
        // What MCP Inspector really sends: github.com is shared by GitHub and Copilot, whose native apps use loopback.
        ['https://github.com/modelcontextprotocol/inspector', ['http://localhost:6274/oauth/callback']],
        // Pages of the app on a brand's subdomains (stores) are the app's website, not the brand's.
        ['https://apps.apple.com/app/trip-helper/id1234567890', ['https://trip-helper.example/cb']],
        ['https://chromewebstore.google.com/detail/trip-helper/abcdefghijklmnopabcdefghijklmnop', ['https://trip-helper.example/cb']],
        ['https://apps.microsoft.com/detail/9NBLGGH4NNS1', ['https://trip-helper.example/cb']],
      ];
      for (const [clientUri, uris] of accepted) {
        const reply = await register(service, { client_name: 'Trip Helper', client_uri: clientUri, redirect_uris: uris });
        assert.equal(reply.status, 201, clientUri);
      }
    });

    test('a look-alike the brand check cannot read is refused even on a brand\'s verified domain; ordinary names in any script register', async () => {
      const refused: Array<[string, RegExp]> = [
        ['G\u0585\u0585gle', /^client_name: mixes scripts in one word \(Latin, Armenian\)/],
        ['Amaz\u0585n', /^client_name: mixes scripts/],
        ['Go\u2c9fgle', /^client_name: mixes scripts in one word \(Latin, Coptic\)/],
        ['\u0262oogle', /^client_name: contains "\u0262"/],
        ['\u1d04laude', /^client_name: contains "\u1d04"/],
        ['\u1d0dicrosoft', /^client_name: contains "\u1d0d"/],
        ['\u01e5oogle', /^client_name: contains "\u01e5"/],
      ];
      for (const [name, why] of refused) {
        const reply = await register(service, { ...valid, client_name: name, redirect_uris: ['https://gemini.google.com/cb'] });
        assert.equal(reply.status, 400, name);
        assert.equal(reply.body.error, 'invalid_client_metadata', name);
        assert.match(reply.body.error_description, why, name);
      }
      for (const name of ['Café Zürich', 'Øresund Rejser', '東京ガイド', 'LINEマンガ', 'Москва Тур', '서울 여행']) {
        const reply = await register(service, { ...valid, client_name: name });
        assert.equal(reply.status, 201, name);
        assert.equal(reply.body.client_name, name);
      }
    });

    test('malformed metadata is invalid_client_metadata naming the field, and stores nothing', async () => {
      const before = await service.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const cases: Array<[unknown, RegExp]> = [
        [{ ...valid, client_name: 42 }, /^client_name:/],
        [{ ...valid, client_name: '   ' }, /^client_name:/],
        [{ ...valid, client_name: 'x'.repeat(201) }, /^client_name:/],
        [{ ...valid, client_name: 'line\nbreak' }, /^client_name:/],
        [{ ...valid, client_uri: 'javascript:alert(1)' }, /^client_uri:/],
        [{ ...valid, client_uri: 'http://planner.example' }, /^client_uri:/],
        [{ ...valid, client_uri: 7 }, /^client_uri:/],
        [{ ...valid, grant_types: ['implicit'] }, /^grant_types:/],
        [{ ...valid, grant_types: ['refresh_token'] }, /^grant_types:/],
        [{ ...valid, grant_types: 'authorization_code' }, /^grant_types:/],
        [{ ...valid, response_types: ['token'] }, /^response_types:/],
        [{ ...valid, scope: ['book'] }, /^scope:/],
        [[valid], /JSON object/],
      ];
      for (const [body, field] of cases) {
        const reply = await register(service, body);
        assert.equal(reply.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(reply.body.error, 'invalid_client_metadata');
        assert.match(reply.body.error_description, field);
      }
      for (const raw of ['{not json', '']) {
        const reply = await call(service.url, 'POST', '/oauth/register', { raw, headers: { 'content-type': 'application/json' } });
        assert.equal(reply.status, 400);
        assert.equal(reply.body.error, 'invalid_client_metadata');
      }
      const form = await call(service.url, 'POST', '/oauth/register', { raw: 'client_name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(form.status, 400);
      assert.equal(form.body.error, 'invalid_client_metadata');
      const afterCount = await service.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(afterCount.n), Number(before.n));
    });

    test('invisible formatting characters (bidi controls, zero-width, \\p{Cf}) in client_name, client_uri or a redirect URI are refused', async () => {
      const before = await service.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      // "\u202Eelgoog" displays as "google"; each of the others hides or reorders text as well.
      const invisible = ['\u202E', '\u202A', '\u202B', '\u202C', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069', '\u061C', '\u200B', '\u200C', '\u200D', '\u200E', '\u200F', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\uFEFF', '\u00AD', '\u{E0041}'];
      for (const ch of invisible) {
        const label = `U+${ch.codePointAt(0)!.toString(16).toUpperCase()}`;
        const name = await register(service, { ...valid, client_name: `${ch}elgoog` });
        assert.equal(name.status, 400, label);
        assert.equal(name.body.error, 'invalid_client_metadata', label);
        assert.match(name.body.error_description, /^client_name: must not contain invisible formatting characters/, label);
        const uri = await register(service, { ...valid, client_uri: `https://planner.example/${ch}moc.elgoog` });
        assert.equal(uri.body.error, 'invalid_client_metadata', label);
        assert.match(uri.body.error_description, /^client_uri: must not contain invisible formatting characters/, label);
        const redirect = await register(service, { ...valid, redirect_uris: [`https://planner.example/cb${ch}`] });
        assert.equal(redirect.body.error, 'invalid_redirect_uri', label);
      }
      const afterCount = await service.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(afterCount.n), Number(before.n));
    });

    test('unknown metadata fields are ignored (RFC 7591 §2); browser clients may register (CORS)', async () => {
      const reply = await register(service, { ...valid, logo_uri: 'https://planner.example/logo.png', contacts: ['a@b.example'], software_id: 'x' });
      assert.equal(reply.status, 201);
      assert.equal(reply.headers.get('access-control-allow-origin'), '*');
      const preflight = await fetch(`${service.url}/oauth/register`, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/);
    });
  });
}

describe('registration rate limit', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(BACKENDS[0]!.url, { OAUTH_REGISTER_RATE_LIMIT: '3' });
  });
  after(() => service?.close());

  test('registrations beyond the per-address allowance are 429 with Retry-After, and store nothing', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await register(service, valid)).status);
    assert.deepEqual(statuses, [201, 201, 201, 429, 429]);
    const limited = await register(service, valid);
    assert.equal(limited.body.error, 'too_many_requests');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    const count = await service.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 3);
  });
});

describe('PROTECTED_BRANDS', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(BACKENDS[0]!.url, { PROTECTED_BRANDS: 'Acme=acme.example' });
  });
  after(() => service?.close());

  test('an operator\'s list replaces the built-in brands, but the service\'s own name stays protected', async () => {
    for (const name of ['Concierge', 'C0ncierge Helper', 'Acme Tools']) {
      const reply = await register(service, { ...valid, client_name: name });
      assert.equal(reply.status, 400, name);
      assert.equal(reply.body.error, 'invalid_client_metadata', name);
      assert.match(reply.body.error_description, /^client_name: names the protected brand/, name);
    }
    assert.equal((await register(service, { ...valid, client_name: 'Acme Tools', redirect_uris: ['https://app.acme.example/cb'] })).status, 201);
    assert.equal((await register(service, { ...valid, client_name: 'Google Calendar' })).status, 201);
  });
});
