import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/observability/logger.ts';
import { captureLogs } from '../helpers/log-capture.ts';

// The logger is the part under test: every line the service writes goes through createLogger, so
// these feed it what call sites and Fastify feed it and read the JSON it writes.

/** An error shaped as node-postgres (and PGlite) raise a failed insert. */
function pgError(): Error {
  const error = new Error('new row for relation "jobs" violates check constraint "jobs_covers_check"') as Error & Record<string, unknown>;
  error.name = 'DatabaseError';
  Object.assign(error, {
    code: '23514',
    severity: 'ERROR',
    detail: 'Failing row contains (3f2c, pending, ada@example.com, +44 20 7946 0958, X1234567).',
    where: 'SQL statement "insert into jobs values (ada@example.com)"',
    schema: 'public',
    table: 'jobs',
    constraint: 'jobs_covers_check',
    query: 'insert into "jobs" ("email", "passport") values ($1, $2)',
    params: ['ada@example.com', 'X1234567'],
    parameters: ['ada@example.com', 'X1234567'],
  });
  return error;
}

const ROW_VALUES = /Failing row|ada@example\.com|7946|X1234567|insert into|\$1/;

describe('createLogger', () => {
  test('a logged database error keeps its type, message and code, and none of detail, where, query, parameters or stack', () => {
    const logs = captureLogs();
    const log = createLogger('info', logs);
    const wrapped = new Error('job could not be stored', { cause: pgError() });
    log.error({ err: pgError() }, 'direct');
    log.error({ err: wrapped }, 'wrapped');
    log.error(pgError(), 'as the first argument');
    log.child({ reqId: 'r1' }).error({ err: pgError() }, 'from a request logger');
    const lines = logs.lines();
    assert.equal(lines.length, 4);
    for (const line of lines) {
      const raw = JSON.stringify(line);
      assert.doesNotMatch(raw, ROW_VALUES, raw);
      assert.doesNotMatch(raw, /"stack"|\\n\s+at /, raw);
    }
    assert.deepEqual(lines[0]!.err, { type: 'DatabaseError', message: pgError().message, code: '23514' });
    assert.deepEqual(lines[1]!.err, { type: 'Error', message: 'job could not be stored', cause: { type: 'DatabaseError', message: pgError().message, code: '23514' } });
    assert.equal((lines[2]!.err as { code: string }).code, '23514');
  });

  test('an error-shaped plain object and a thrown non-error are logged readably', () => {
    const logs = captureLogs();
    const log = createLogger('info', logs);
    log.warn({ err: { message: 'queue hiccup', detail: 'Failing row contains (ada@example.com)' } }, 'plain');
    log.warn({ err: 'a string was thrown' }, 'string');
    const [plain, text] = logs.lines();
    assert.deepEqual(plain!.err, { message: 'queue hiccup' });
    assert.equal(text!.err, 'a string was thrown');
  });

  test('secret-named fields are redacted at the top level, nested, in arrays, and in child bindings', () => {
    const logs = captureLogs();
    const log = createLogger('info', logs);
    const secrets = {
      token: 'top-token-1',
      password: 'top-password-2',
      secret: 'top-secret-3',
      client_secret: 'top-client-secret-4',
      refresh_token: 'top-refresh-5',
      access_token: 'top-access-6',
      code_verifier: 'top-verifier-7',
    };
    log.info({ ...secrets, jobId: 'job-1' }, 'top level');
    log.info({ body: { ...secrets, profile: { first_name: 'Ada' } } }, 'one level down');
    log.info({ request: { body: { grant: { ...secrets } } }, list: [{ clientSecret: 'camel-secret-8' }, { 'Set-Cookie': 'sid=cookie-9' }] }, 'deeper');
    log.child({ token: 'child-token-10' }).info('bound');
    const text = logs.text();
    for (const value of [...Object.values(secrets), 'camel-secret-8', 'cookie-9', 'child-token-10']) assert.ok(!text.includes(value), `${value} reached the log`);
    const [top, nested, deeper, bound] = logs.lines();
    for (const name of Object.keys(secrets)) {
      assert.equal(top![name], '[redacted]', name);
      assert.equal((nested!.body as Record<string, unknown>)[name], '[redacted]', name);
    }
    assert.equal(top!.jobId, 'job-1', 'other fields are kept');
    assert.deepEqual((nested!.body as Record<string, unknown>).profile, { first_name: 'Ada' });
    assert.equal((deeper as any).request.body.grant.code_verifier, '[redacted]');
    assert.deepEqual((deeper as any).list, [{ clientSecret: '[redacted]' }, { 'Set-Cookie': '[redacted]' }]);
    assert.equal(bound!.token, '[redacted]');
  });

  test('the logged object itself is never changed', () => {
    const log = createLogger('info', captureLogs());
    const fields = { token: 'keep-me', body: { password: 'keep-me-too' } };
    log.info(fields, 'm');
    assert.deepEqual(fields, { token: 'keep-me', body: { password: 'keep-me-too' } });
  });

  test('a request line carries the path without query or capability token, and no credential header', () => {
    const logs = captureLogs();
    const log = createLogger('info', logs);
    const headers = Object.assign(Object.create(null) as Record<string, string>, { authorization: 'Bearer abc', cookie: 'sid=def', 'proxy-authorization': 'Basic ghi', accept: '*/*' });
    log.info({ req: { id: 'r', method: 'GET', url: '/handoff/tok-secret-value?code=xyz', headers } }, 'incoming request');
    const [line] = logs.lines();
    assert.deepEqual(line!.req, {
      id: 'r',
      method: 'GET',
      url: '/handoff/[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]', 'proxy-authorization': '[redacted]', accept: '*/*' },
    });
  });
});
