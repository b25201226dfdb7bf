// Secret-named fields are replaced wherever they sit in a logged object. pino's own redaction
// matches paths of a fixed depth ('*.token' is exactly one level down), so covering the top level
// and every nesting would mean listing each name at each depth, which tripled the cost of every
// log line; one walk of the (small, plain) logged object does it at any depth for less.

export const CENSOR = '[redacted]';

/**
 * Field names whose value is a secret, compared without case, `-` or `_` (so `client_secret`,
 * `clientSecret` and `Client-Secret` are one name). Header names are here too: a logged headers
 * object is redacted like any other.
 */
export const SECRET_FIELDS = [
  'password',
  'secret',
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'code_verifier',
  'token',
  'key',
  'api_key',
  'cvc',
  'card_code',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
];
const SECRET_NAMES = new Set(SECRET_FIELDS.map(normalize));

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(normalize(name));
}

// Deeper than any object this service logs; also what stops a cycle.
const MAX_DEPTH = 8;

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
}

/**
 * `value` with every secret-named field censored, copied only where something changed. Only plain
 * objects and arrays are walked: requests, replies and errors have serializers of their own, which
 * keep just the fields a log may hold.
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH || !isPlain(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[i] = redacted;
    });
    return (copy ?? value) as T;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const name of Object.keys(record)) {
    const item = record[name];
    const redacted = item !== undefined && isSecretName(name) ? CENSOR : redactSecrets(item, depth + 1);
    if (redacted !== item) (copy ??= { ...record })[name] = redacted;
  }
  return (copy ?? value) as T;
}
