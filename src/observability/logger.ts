import { pino, type Logger, type DestinationStream } from 'pino';

// JSON logs. Credentials never reach them: headers that carry secrets, and any field a caller
// names like a secret, are replaced before the line is written.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.code_verifier',
  '*.token',
  '*.key',
  '*.cvc',
  '*.card_code',
];

// Paths that carry a capability token (the handoff link, the watch link): the token never reaches a log.
const TOKEN_IN_PATH = /^(\/handoff\/|\/watch\/[^/]+\/)[^/]+/;

export function redactPath(url: string): string {
  return url.split('?')[0]!.replace(TOKEN_IN_PATH, '$1[redacted]');
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        req(req: { id: string; method: string; url: string; headers: Record<string, unknown> }) {
          // Query strings can carry codes or tokens (a client misusing the API): log the path only.
          return { id: req.id, method: req.method, url: redactPath(String(req.url)), headers: req.headers };
        },
      },
    },
    destination,
  );
}
