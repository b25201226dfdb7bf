import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ConfigError } from '../config.ts';
import type { Database } from './index.ts';

// A node started beside its database (a deployment that starts everything at once, a PostgreSQL
// still recovering, a machine so loaded that a connection misses its 5 s timeout) would otherwise
// exit at its first failed connection, and the deployment come up a node short. It tries again with
// backoff, for DATABASE_WAIT_SECONDS, but only for what time can mend: a wrong password or a
// database that does not exist fails at once, naming DATABASE_URL.

/** The pause after the first failed try; doubled after each one up to LAST_PAUSE_MS. */
export const FIRST_PAUSE_MS = 500;
export const LAST_PAUSE_MS = 10_000;

/** Socket errors of a server that is not listening or not reachable yet, or a name not published yet. */
const TRANSIENT_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs a server gives while it cannot take the connection yet: class 08 (connection exception),
 * class 53 (insufficient resources: too many connections), 57P01-57P03 (shutting down, crashed,
 * starting up or in recovery). Any other SQLSTATE is an answer that waiting will not change.
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[123])/;

/** pg's own words for a connection that timed out or dropped before the server answered: they carry no code. */
const TRANSIENT_MESSAGES = ['Connection terminated due to connection timeout', 'Connection terminated unexpectedly', 'timeout exceeded when trying to connect'];

export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/** Whether another try may succeed where `error` failed. Anything unrecognised is permanent: a mistake must not be waited on for minutes. */
export function isTransientConnectError(error: unknown): boolean {
  return errorChain(error).some(({ code, syscall, message }) => {
    if (typeof code === 'string' && (TRANSIENT_ERRNO.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
    // A Unix socket that is not there yet: the server has not created it.
    if (code === 'ENOENT' && syscall === 'connect') return true;
    return typeof message === 'string' && TRANSIENT_MESSAGES.includes(message);
  });
}

type ErrorLike = { code?: unknown; syscall?: unknown; message?: unknown };

/** The error, its causes, and the errors of an AggregateError (a name with both IPv4 and IPv6 addresses fails once per address). */
function errorChain(error: unknown, depth = 0): ErrorLike[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  const nested = Array.isArray(errors) ? errors.flatMap((e: unknown) => errorChain(e, depth + 1)) : [];
  return [error as ErrorLike, ...errorChain(cause, depth + 1), ...nested];
}

/** What a log line or a message may say of a PostgreSQL URL: user, host, port and (unless `serverOnly`) database, never the password. */
export function describeDatabaseUrl(url: string, serverOnly = false): string {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname);
  const port = parsed.searchParams.get('port') ?? (parsed.port || '5432');
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  return `${user}${host}:${port}${serverOnly ? '' : decodeURIComponent(parsed.pathname)}`;
}

/** `text` with the URL's password taken out, as written and decoded, should a driver ever quote it. */
function withoutPassword(text: string, url: string): string {
  const raw = new URL(url).password;
  if (!raw) return text;
  return [raw, decodeURIComponent(raw)].reduce((scrubbed, secret) => scrubbed.replaceAll(secret, '***'), text);
}

/** The failure in a few words: the driver's message and code, the password taken out. */
function summary(error: unknown, url: string): { message: string; code?: string } {
  const { message, code } = error as ErrorLike;
  const text = withoutPassword(typeof message === 'string' && message ? message : String(error), url);
  return typeof code === 'string' ? { message: text, code } : { message: text };
}

/** The message for a connection the server refused for good: the SQLSTATE says which setting is wrong. */
function refusedMessage(error: unknown, url: string): string {
  const { message, code } = summary(error, url);
  const where = describeDatabaseUrl(url);
  switch (code) {
    case '28P01':
      return `DATABASE_URL: the database server at ${where} refused the password (${message}; SQLSTATE 28P01)`;
    case '28000':
      return `DATABASE_URL: the database server at ${where} refused the user (${message}; SQLSTATE 28000)`;
    case '3D000':
      return `DATABASE_URL: ${message} on the server at ${describeDatabaseUrl(url, true)} (SQLSTATE 3D000): create it, or name an existing one`;
    default:
      return `DATABASE_URL: cannot open the database at ${where}: ${message}${code ? ` (${code})` : ''}`;
  }
}

export interface WaitOptions {
  /** DATABASE_URL (PostgreSQL): what the messages describe, its password left out. */
  url: string;
  /** DATABASE_WAIT_SECONDS: how long transient failures are tried again. */
  waitSeconds: number;
  log: Logger;
  /** The caller no longer wants the database (its start failed otherwise): stop trying, close what opened. */
  signal?: AbortSignal;
}

/**
 * Opens the database and proves it answers, trying again with backoff while the failure is
 * transient, for at most `waitSeconds`. A permanent failure throws a ConfigError at once; running
 * out of time throws DatabaseUnreachableError. Both name DATABASE_URL.
 */
export async function waitForDatabase(open: () => Promise<Database>, options: WaitOptions): Promise<Database> {
  const deadline = Date.now() + options.waitSeconds * 1000;
  let pause = FIRST_PAUSE_MS;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    const outcome = await tryOnce(open);
    if ('database' in outcome) return kept(outcome.database, attempt, options);
    const retryInMs = pauseOrGiveUp(outcome.error, deadline, pause, attempt, options);
    options.log.warn({ database: describeDatabaseUrl(options.url), attempt, retryInMs, err: summary(outcome.error, options.url) }, 'database not reachable yet: trying again');
    await sleep(retryInMs, undefined, { signal: options.signal });
    pause = Math.min(pause * 2, LAST_PAUSE_MS);
  }
}

/** One try: the pool opened (and, on a schema of its own, the schema created) and a ping answered. */
async function tryOnce(open: () => Promise<Database>): Promise<{ database: Database } | { error: unknown }> {
  let database: Database | undefined;
  try {
    database = await open();
    await database.ping();
    return { database };
  } catch (error) {
    await database?.close().catch(() => {});
    return { error };
  }
}

/** The database reached, unless the caller gave up on it meanwhile. */
async function kept(database: Database, attempt: number, options: WaitOptions): Promise<Database> {
  if (options.signal?.aborted) {
    await database.close().catch(() => {});
    options.signal.throwIfAborted();
  }
  if (attempt > 1) options.log.info({ database: describeDatabaseUrl(options.url), attempt }, 'database reached');
  return database;
}

/** How long to pause before the next try; throws when the failure is permanent or the time is up. */
function pauseOrGiveUp(error: unknown, deadline: number, pause: number, attempt: number, options: WaitOptions): number {
  const { url, log, waitSeconds } = options;
  if (!isTransientConnectError(error)) {
    const message = refusedMessage(error, url);
    log.error({ database: describeDatabaseUrl(url), attempt }, message);
    throw new ConfigError(message);
  }
  const left = deadline - Date.now();
  if (left > 0) return Math.min(pause, left);
  const message = `DATABASE_URL: the database at ${describeDatabaseUrl(url)} could not be reached within ${waitSeconds} s (DATABASE_WAIT_SECONDS), ${attempt} ${attempt === 1 ? 'try' : 'tries'}; the last: ${summary(error, url).message}`;
  log.error({ database: describeDatabaseUrl(url), attempt }, message);
  throw new DatabaseUnreachableError(message);
}
