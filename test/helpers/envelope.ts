import assert from 'node:assert/strict';

// What every error reply of the app must look like: its surface's envelope, and nothing of the
// database or the framework.

/** What a reply must never carry: database errors, their codes, stacks, framework internals. */
const LEAKS = [/relation "/i, /\b42P01\b/, /\b22P05\b/, /\b22021\b/, /invalid byte sequence/i, /unsupported Unicode escape/i, /\bSQLSTATE\b/i, /does not exist/i, /FST_ERR/, /"statusCode"/, /\bat [\w.<>]+ \(/, /\.ts:\d+/, /node:internal/, /\bselect\b.*\bfrom\b/i];

export interface Answer {
  status: number;
  type: string;
  text: string;
}

/** An error reply is in its surface's envelope (REST, JSON-RPC, app-wide {error, message} or OAuth's, or an HTML page) and leaks nothing. */
export function assertEnvelope(what: string, path: string, answer: Answer): void {
  // A page or document that answers (the API reference) may say "does not exist" of its own accord.
  for (const leak of answer.status < 400 ? LEAKS.slice(0, 2) : LEAKS) assert.doesNotMatch(answer.text, leak, `${what}: leaks ${leak}: ${answer.text.slice(0, 300)}`);
  if (answer.status < 400) return;
  // The readiness probe's documented body.
  if (path === '/readyz') return assert.equal(JSON.parse(answer.text).status, 'unavailable');
  if (answer.type.startsWith('text/html')) return;
  assert.match(answer.type, /^application\/json/, `${what}: ${answer.status} answered as ${answer.type}: ${answer.text.slice(0, 200)}`);
  const body = JSON.parse(answer.text);
  if (path.startsWith('/api/v1')) {
    assert.equal(typeof body.error?.code, 'string', `${what}: REST envelope: ${answer.text}`);
    assert.equal(typeof body.error?.message, 'string', `${what}: REST envelope: ${answer.text}`);
  } else if (body.jsonrpc === '2.0') {
    assert.equal(typeof body.error?.message, 'string', `${what}: JSON-RPC envelope: ${answer.text}`);
  } else {
    assert.equal(typeof body.error, 'string', `${what}: envelope: ${answer.text}`);
    assert.equal(typeof (body.message ?? body.error_description), 'string', `${what}: envelope: ${answer.text}`);
  }
}
