import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BACKENDS, FLIGHT_PROFILE, PROFILE, daysFromNow, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { API_ERRORS, AUTH_ERROR_CODES } from '../../src/api/v1/error-codes.ts';

// The OpenAPI document and the reference page, read from the running service: both public, the
// document complete (every operation, its error codes, the auth scheme), its schemas true to what
// the service accepts and answers (checked with a JSON Schema validator on real payloads), and the
// page self-contained.
const backend = BACKENDS[0]!;

const toFastifyPath = (path: string) => `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
const codesOf = (response: any): string[] => Object.keys(response?.content?.['application/json']?.examples ?? {});

describe(`OpenAPI document and reference page on ${backend.name}`, () => {
  let service: TestService;
  let doc: any;
  let key: string;
  before(async () => {
    service = await startTestService(backend.url, { BASE_URL: 'https://concierge.example' });
    key = await service.mintKey('Docs Org');
    const reply = await call(service.url, 'GET', '/api/v1/openapi.json');
    assert.equal(reply.status, 200, 'public: no API key needed');
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    doc = reply.body;
  });
  after(() => service.close());

  test('it is OpenAPI 3.1 with the bearer API-key scheme and the public base URL', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: 'https://concierge.example/api/v1' }]);
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    assert.equal(doc.components.securitySchemes.apiKey.type, 'http');
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
  });

  test('the document and every response show the release version from package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(doc.info.version, version);
    for (const path of ['/api/v1/openapi.json', '/healthz', '/.well-known/oauth-authorization-server', '/', '/no/such/page', '/api/v1/execution-jobs']) {
      const reply = await call(service.url, 'GET', path);
      assert.equal(reply.headers.get('concierge-version'), version, `Concierge-Version on GET ${path}`);
    }
  });

  test('every operation is documented, and only operations that exist', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    assert.deepEqual(operations.sort(), [
      'DELETE /profiles/{profileId}',
      'GET /docs',
      'GET /execution-jobs/{jobId}',
      'GET /execution-jobs/{jobId}/audit',
      'GET /metrics/providers/{providerId}',
      'GET /openapi.json',
      'GET /profiles',
      'GET /profiles/{profileId}',
      'POST /execution-jobs',
      'POST /execution-jobs/{jobId}/cancel',
      'POST /profiles',
      'DELETE /webhook-endpoints/{endpointId}',
      'GET /webhook-endpoints',
      'GET /webhook-endpoints/{endpointId}/deliveries',
      'POST /webhook-endpoints',
      'POST /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/replay',
      'POST /webhook-endpoints/{endpointId}/rotate',
    ].sort());
    // Each documented path answers its documented methods and 405s every other one: the document
    // lists all there is. (GET on the job collection exists only to answer 400 missing_job_id.)
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      const url = toFastifyPath(path).replace(/:\w+/g, '1');
      for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH']) {
        const reply = await call(service.url, method, url, { key });
        const label = `${method} ${path} answered ${reply.status} ${reply.text.slice(0, 120)}`;
        if (method.toLowerCase() in methods) {
          assert.notEqual(reply.status, 405, label);
          assert.notEqual(reply.body?.error?.code, 'not_found', label);
        } else if (method === 'GET' && path === '/execution-jobs') {
          assert.equal(reply.body.error.code, 'missing_job_id', label);
        } else {
          assert.equal(reply.status, 405, label);
        }
      }
    }
  });

  test('each operation lists its error codes; authenticated ones list the 401 codes and 503', () => {
    const expectations: Record<string, string[]> = {
      'post /execution-jobs': ['invalid_json', 'invalid_request', 'scenario_not_allowed', 'idempotency_key_reused', 'job_create_failed', 'payload_too_large', 'unsupported_media_type'],
      'get /execution-jobs/{jobId}': ['missing_job_id', 'job_not_found'],
      'get /execution-jobs/{jobId}/audit': ['missing_job_id', 'job_not_found'],
      'get /metrics/providers/{providerId}': ['missing_provider_id'],
      'post /profiles': ['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type'],
      'get /profiles/{profileId}': ['profile_not_found'],
      'delete /profiles/{profileId}': ['profile_not_found'],
      'get /profiles': [],
    };
    for (const [operation, codes] of Object.entries(expectations)) {
      const [method, path] = operation.split(' ') as [string, string];
      const op = doc.paths[path][method];
      const documented = Object.values<any>(op.responses).flatMap(codesOf);
      for (const code of [...codes, ...AUTH_ERROR_CODES, 'internal_error']) {
        assert.ok(documented.includes(code), `${operation} does not list ${code}`);
        const status = String((API_ERRORS as any)[code].status);
        assert.ok(codesOf(op.responses[status]).includes(code), `${operation}: ${code} is not under ${status}`);
      }
      assert.ok(op.responses['503'].headers['Retry-After']);
      assert.ok(!('security' in op), `${operation} needs the API key`);
    }
    for (const path of ['/openapi.json', '/docs']) {
      assert.deepEqual(doc.paths[path].get.security, [], `${path} is public`);
    }
    assert.deepEqual(Object.keys(doc['x-error-codes']).sort(), Object.keys(API_ERRORS).sort());
  });

  test('query parameters state their defaults and clamps', () => {
    const limit = doc.paths['/execution-jobs/{jobId}/audit'].get.parameters.find((p: any) => p.name === 'limit');
    assert.deepEqual(limit.schema, { type: 'integer', default: 500, minimum: 1, maximum: 2000 });
    const days = doc.paths['/metrics/providers/{providerId}'].get.parameters.find((p: any) => p.name === 'timeRangeDays');
    assert.deepEqual(days.schema, { type: 'integer', default: 30, minimum: 1, maximum: 365 });
  });

  describe('the schemas describe what the service really accepts and answers', () => {
    let ajv: InstanceType<typeof Ajv2020>;
    const validate = (name: string, value: unknown) => {
      const check = ajv.getSchema(`openapi#/components/schemas/${name}`);
      assert.ok(check, `no schema ${name}`);
      return { ok: check(value) as boolean, errors: check.errors };
    };
    before(() => {
      ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
      ajv.addSchema({ ...doc, $id: 'openapi' });
    });

    test('requests the service accepts are valid against ExecutionJobRequest', async () => {
      const bodies = [
        restaurantRequest(),
        { ...restaurantRequest(), consent: { maxRetries: 2, allowedProviders: null }, clientMetadata: { agentId: 'a', idempotencyKey: 'k-openapi' } },
        { request: { scenario: 'hotel', params: { hotel_name: 'H', city: 'C', checkin: daysFromNow(5), checkout: daysFromNow(6), adults: 1 } }, profile: PROFILE },
        { request: { scenario: 'flight', params: { origin: 'LHR', dest: 'JFK', date: daysFromNow(5), passengers: 2, cabin_class: 'first' } }, profile: { ...FLIGHT_PROFILE, additional_travellers: [{ first_name: 'Ada', last_name: 'Byron', dob: '2010-03-04', passport_number: 'Y7654321', passport_country: 'GB' }] } },
        { request: { scenario: 'activity', params: { event_name: 'E', city: 'C', event_date: daysFromNow(5), num_tickets: 1 } }, profile: PROFILE },
      ];
      for (const body of bodies) {
        const result = validate('ExecutionJobRequest', body);
        assert.ok(result.ok, JSON.stringify(result.errors));
        const reply = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
        assert.equal(reply.status, 202, reply.text);
        assert.ok(validate('CreatedJob', reply.body).ok);
        const read = await call(service.url, 'GET', reply.body._links.self, { key });
        assert.ok(validate('ExecutionJob', read.body).ok, JSON.stringify(validate('ExecutionJob', read.body).errors));
        const audit = await call(service.url, 'GET', reply.body._links.audit, { key });
        assert.ok(validate('JobAudit', audit.body).ok);
      }
    });

    test('structurally wrong requests are invalid against the schema too', () => {
      const wrong = [
        {},
        { request: restaurantRequest().request },
        { ...restaurantRequest(), profileId: 3 },
        { ...restaurantRequest(), extra: true },
        { request: { scenario: 'restaurant', params: { ...restaurantRequest().request.params, covers: '2' } }, profile: PROFILE },
        { request: { scenario: 'boat', params: {} }, profile: PROFILE },
        { ...restaurantRequest(), consent: { paymentPolicy: 'charge' } },
      ];
      for (const body of wrong) assert.equal(validate('ExecutionJobRequest', body).ok, false, JSON.stringify(body));
    });

    test('error replies, metrics and profiles match their schemas', async () => {
      const error = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: {} });
      assert.ok(validate('Error', error.body).ok);
      const metrics = await call(service.url, 'GET', '/api/v1/metrics/providers/resy', { key });
      assert.ok(validate('ProviderMetrics', metrics.body).ok, JSON.stringify(validate('ProviderMetrics', metrics.body).errors));
      const stored = await call(service.url, 'POST', '/api/v1/profiles', { key, body: PROFILE });
      assert.ok(validate('Profile', PROFILE).ok);
      assert.ok(validate('StoredProfile', stored.body).ok);
      assert.ok(validate('ProfileList', (await call(service.url, 'GET', '/api/v1/profiles', { key })).body).ok);
    });
  });

  test('the reference page is public, self-contained HTML covering every operation and error code', async () => {
    const reply = await call(service.url, 'GET', '/api/v1/docs');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const html = reply.text;
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script/i, 'no script');
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//i, 'no external asset');
    const csp = reply.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`), 'the inline style is allowed by its hash');
    for (const path of Object.keys(doc.paths)) assert.ok(html.includes(`<code>/api/v1${path.replace(/&/g, '&amp;')}</code>`), path);
    for (const code of Object.keys(API_ERRORS)) assert.ok(html.includes(`<code>${code}</code>`), code);
    for (const name of Object.keys(doc.components.schemas)) assert.ok(html.includes(`id="schema-${name}"`), name);
    assert.ok(html.includes('https://concierge.example/api/v1'));
  });

  test('HEAD and OPTIONS on the public routes need no key either', async () => {
    assert.equal((await call(service.url, 'HEAD', '/api/v1/docs')).status, 200);
    assert.equal((await call(service.url, 'OPTIONS', '/api/v1/openapi.json')).status, 204);
  });
});
