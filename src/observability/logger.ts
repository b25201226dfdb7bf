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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        req(req: { id: string; method: string; url: string; headers: Record<string, unknown> }) {
          // Query strings can carry codes or tokens (a client misusing the API): log the path only.
          return { id: req.id, method: req.method, url: String(req.url).split('?')[0], headers: req.headers };
        },
      },
    },
    destination,
  );
}
