import { ProviderFailure } from '../../../driver/failures.ts';

/**
 * The generic driver did not find what a step needs on the page: an `unexpected_page` failure
 * whose message is the evidence (the step, the URL, what was looked for, what was found).
 */
export class NotUnderstood extends ProviderFailure {
  constructor(step: string, url: string, lookedFor: string, found: string) {
    super('unexpected_page', `the generic driver could not go on at ${step} on ${safe(url)}: it looked for ${lookedFor}, and found ${found}`);
    this.name = 'NotUnderstood';
  }
}

function safe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'the page';
  }
}
