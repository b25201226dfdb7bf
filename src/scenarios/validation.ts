import type { z } from 'zod';

// How validation failures read. zod's defaults ("Invalid input: expected string, received
// undefined") speak of types, not of the request a client sent, so every message here names the
// field by the key the client used and says what it must be: "covers is required", "covers must be
// a number, not a string". The map is passed at parse time (never installed globally), so other
// users of zod in the process keep their own messages.

/** One problem with a request: where (dotted path, `(body)` for the whole body) and what. */
export interface Issue {
  path: string;
  message: string;
}

/** The name an API user knows a value by: its key, with list positions as [i]. */
export function subjectOf(path: readonly PropertyKey[] | undefined): string {
  let subject = 'the request body';
  for (const part of path ?? []) subject = typeof part === 'number' ? `${subject}[${part}]` : String(part);
  return subject;
}

/** A check's message: the field's key followed by `predicate`. */
export function says(predicate: string) {
  return { error: (issue: { path?: PropertyKey[] }) => `${subjectOf(issue.path)} ${predicate}` };
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  date: 'a date',
};

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      // JSON has no infinity, but a literal too large for a double (1e400) parses as one.
      if (Number.isNaN(value)) return 'NaN';
      return Number.isFinite(value) ? 'a number' : 'an infinite number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function bound(issue: { origin?: string; inclusive?: boolean }, limit: unknown, side: 'least' | 'most'): string {
  const n = Number(limit);
  switch (issue.origin) {
    case 'string':
      return side === 'least' && n === 1 ? 'must not be empty' : `must be at ${side} ${n} characters long`;
    case 'array':
    case 'set':
      return `must have at ${side} ${n} item${n === 1 ? '' : 's'}`;
    default:
      if (issue.inclusive === false) return side === 'least' ? `must be greater than ${n}` : `must be less than ${n}`;
      return `must be at ${side} ${n}`;
  }
}

/** The parse-time error map: a message for every issue a check did not word itself. */
export const errorMap: z.core.$ZodErrorMap = (issue) => {
  const subject = subjectOf(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return `${subject} is required`;
      if (issue.expected === 'int' && typeof issue.input === 'number') return `${subject} must be a whole number`;
      return `${subject} must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${describeValue(issue.input)}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `${subject} must be ${JSON.stringify(issue.values[0])}`
        : `${subject} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `${subject} ${bound(issue, issue.minimum, 'least')}`;
    case 'too_big':
      return `${subject} ${bound(issue, issue.maximum, 'most')}`;
    case 'invalid_format':
      return issue.format === 'email' ? `${subject} must be a valid email address` : `${subject} is not in the expected format`;
    case 'unrecognized_keys':
      return `${subject} has unknown field${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    default:
      return `${subject} is not valid`;
  }
};

/**
 * Flattens a zod error into issues. An unknown field is reported at its own path ("consent.extra:
 * extra is not a known field") rather than at its parent, so a client sees exactly what to remove.
 */
export function toIssues(error: z.ZodError, prefix: readonly (string | number)[] = []): Issue[] {
  const out: Issue[] = [];
  for (const issue of error.issues) {
    const base = [...prefix, ...issue.path].map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...base, key].join('.'), message: `${key} is not a known field` });
      continue;
    }
    out.push({ path: base.join('.') || '(body)', message: issue.message });
  }
  return out;
}
