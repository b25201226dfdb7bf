import { pino, type Logger, type DestinationStream } from 'pino';
import { loggableError } from './loggable-error.ts';
import { CENSOR, redactSecrets, SECRET_FIELDS } from './redact.ts';

// JSON logs. Credentials never reach them: any field named like a secret (a header or a body
// field, at any depth) is replaced before the line is written (./redact.ts), and errors are logged
// without stack or row data (./loggable-error.ts).

// Paths that carry a capability token (the handoff link, the watch link): the token never reaches a log.
const TOKEN_IN_PATH = /^(\/handoff\/|\/watch\/[^/]+\/)[^/]+/;

export function redactPath(url: string): string {
  return url.split('?')[0]!.replace(TOKEN_IN_PATH, `$1${CENSOR}`);
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // Runs on each line's own fields, before the serializers below.
      formatters: { log: redactSecrets },
      // A child logger's bindings skip that formatter; pino's redaction covers their top level.
      redact: { paths: SECRET_FIELDS.map((name) => `["${name}"]`), censor: CENSOR },
      serializers: {
        req(req: { id: string; method: string; url: string; headers: Record<string, unknown> }) {
          // Query strings can carry codes or tokens (a client misusing the API): log the path only.
          return { id: req.id, method: req.method, url: redactPath(String(req.url)), headers: redactSecrets(req.headers) };
        },
        // Every `{ err }` (and Fastify's own error lines) goes through here, so no call site can
        // log a stack or a database error's row values by forgetting to strip them.
        err: loggableError,
      },
    },
    destination,
  );
}
