import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETURN_TO, safeReturnTo } from '../../src/identity/return-to.ts';

// Where the browser goes after signing in: a path on this service, never anywhere else. Every
// page that sends someone to sign in (consent, connected apps, bookings, handoff) goes through it.

const BASE = 'https://concierge.example.com';

test('return_to: paths on this service are kept, with their query', () => {
  assert.equal(safeReturnTo('/oauth/consent?request=abc', BASE), '/oauth/consent?request=abc');
  assert.equal(safeReturnTo('/developers/connected-apps', BASE), '/developers/connected-apps');
  assert.equal(safeReturnTo('/handoff/a/../b', BASE), '/handoff/b');
});

test('return_to: anything that would leave the service goes to the default page instead', () => {
  const attempts = [
    'https://evil.example/',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    ' /evil',
    'javascript:alert(1)',
    'evil.example',
    // Dot segments the parser resolves into a scheme-relative "//evil.example".
    '/.//evil.example',
    '/..//evil.example',
    '/a/..//evil.example/x',
    '/%2e//evil.example',
    '/.%2e//evil.example',
    '/%2E%2E//evil.example?x=1',
    '/././/evil.example',
  ];
  for (const raw of attempts) {
    const returned = safeReturnTo(raw, BASE);
    assert.equal(returned, DEFAULT_RETURN_TO, JSON.stringify(raw));
  }
});

test('return_to: whatever comes back is a path a browser resolves on this service', () => {
  const samples = ['/', '/x', '/.', '/..', '/./x', '/../x', '/x/../../y', '/%2F%2Fevil.example', '/.%2F/evil.example', '/x?//evil.example', '/;//evil'];
  for (const raw of samples) {
    const returned = safeReturnTo(raw, BASE);
    assert.ok(returned.startsWith('/') && !returned.startsWith('//'), `${JSON.stringify(raw)} → ${returned}`);
    assert.equal(new URL(returned, BASE).origin, BASE, `${JSON.stringify(raw)} → ${returned}`);
  }
});
