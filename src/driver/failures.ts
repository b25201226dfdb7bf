// How a provider attempt can end without a booking, as drivers and the executor both name it: a
// driver throws a ProviderFailure of a kind; the executor reads every other error as one
// (executor/failures.ts asFailure).

export type FailureKind =
  | 'no_availability' // the site has nothing acceptable under the consent
  | 'login_wall' // the site wants a signed-in member
  | 'captcha' // the site wants a human to solve a CAPTCHA
  | 'outage' // the site is down (HTTP 503)
  | 'transient' // errors a retry may cure (HTTP 502, 504, 429, timeouts, dropped connections)
  | 'unexpected_page' // the page is not what the driver knows (changed or broken site)
  | 'blocked_address' // the site led the browser off the public web (src/browser/egress.ts)
  | 'error'; // anything else

export class ProviderFailure extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.name = 'ProviderFailure';
    this.kind = kind;
  }
}

/** The first non-blank line of a text, its whitespace collapsed, cut to `max` characters. */
export function oneLine(text: string, max = 300): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return first.replace(/\s+/g, ' ').trim().slice(0, max);
}
