import { pino, type Logger, type DestinationStream } from 'pino';
import { loggableError } from './loggable-error.ts';
import { CENSOR, redactSecrets, SECRET_FIELDS } from './redact.ts';

// JSON logs. Credentials never reach them: any field named like a secret (a header or a body
// field, at any depth) is replaced before the line is written (./redact.ts), and errors are logged
// without stack or row data (./loggable-error.ts).

// Paths that carry a capability token (the handoff link, the watch link): the token never reaches a
// log. The router finds a route for more spellings than the canonical one (`//handoff/T`,
// `/%68andoff/T`), and a path no route matches (`/HANDOFF/T`) is logged and named in the 404 too; so
// the path is first read as the router would (decoded, repeated slashes collapsed) and its route
// words compared without case. Any run of 43 or more base64url characters (a token's length, and
// no other segment this service serves) is redacted too, wherever it sits.
const TOKEN_RUN = /[A-Za-z0-9_-]{43,}/g;
/** How many rounds of percent-decoding a logged path gets (a double-encoded token is still a token). */
const DECODE_ROUNDS = 3;

function decodePath(path: string): string {
  let decoded = path;
  for (let i = 0; i < DECODE_ROUNDS && decoded.includes('%'); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      // A malformed escape: decode what can be, leave the rest as written.
      decoded = decoded.replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
        try {
          return decodeURIComponent(escape);
        } catch {
          return escape;
        }
      });
    }
  }
  return decoded;
}

/** The path of a request URL as it may be logged or echoed: no query, no fragment, no capability token. */
export function redactPath(url: string): string {
  const path = decodePath(url.split(/[?#]/, 1)[0]!).replace(/[/\\]+/g, '/');
  const segments = path.split('/');
  const route = segments[1]?.toLowerCase();
  if (route === 'handoff' && segments[2]) segments[2] = CENSOR;
  if (route === 'watch' && segments[3]) segments[3] = CENSOR;
  return segments.join('/').replace(TOKEN_RUN, CENSOR);
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
