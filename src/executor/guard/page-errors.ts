// What the payment guard's page API (page-api.ts) throws: the pause at the card step, a refusal,
// and the page failures a driver's attempt is judged by (attempt.ts).

/** The pause point: a driver tried to go past the card-code step. */
export class CardStepReached extends Error {
  /** null: the step would charge without asking for a code (a WebMCP tool that pays). */
  readonly field: string | null;
  readonly control: string;
  constructor(field: string | null, control: string) {
    super(field === null ? `the next step (${control}) would pay` : `the next step needs the card security code (${field})`);
    this.name = 'CardStepReached';
    this.field = field;
    this.control = control;
  }
}

/** A driver asked for something the guard never does (filling a card-code field). */
export class GuardRefusal extends Error {
  readonly field: string;
  constructor(field: string) {
    super(`refused to fill the card security code field ${field}`);
    this.name = 'GuardRefusal';
    this.field = field;
  }
}

/**
 * The guard could not tell whether the page shows a card-code field (a frame did not answer, or was
 * replaced while asked), so it did not press: not knowing is not a "no".
 */
export class CardCheckFailed extends Error {
  readonly control: string;
  constructor(control: string, why: string) {
    super(`the payment guard could not check the page for a card security code field (${why}), so it did not press '${control}'`);
    this.name = 'CardCheckFailed';
    this.control = control;
  }
}

/** A part of the page the driver needs is not there. */
export class MissingElement extends Error {
  readonly selector: string;
  constructor(selector: string, waitedMs: number) {
    super(`the page has no ${selector} (waited ${Math.round(waitedMs / 1000)} s)`);
    this.name = 'MissingElement';
    this.selector = selector;
  }
}

/** The tab did not answer a question about its page in time (a hung or starved renderer). */
export class PageUnresponsive extends Error {
  constructor(what: string, waitedMs: number) {
    super(`the page did not answer (${what}) within ${Math.round(waitedMs / 1000)} s`);
    this.name = 'PageUnresponsive';
  }
}

/** The site answered a navigation with a server error (5xx, 429): the executor decides what it means. */
export class HttpStatusError extends Error {
  readonly status: number;
  readonly url: string;
  constructor(status: number, url: string) {
    super(`the site answered HTTP ${status}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.url = url;
  }
}

/** A question to the page within the page API's time limit: PageUnresponsive beyond it. */
export type Bounded = <T>(work: Promise<T>, what: string) => Promise<T>;

/**
 * Playwright's answer when the document it was asking went away mid-question: the page navigated
 * (a script's redirect, a form sent after a delay). The next document is a different question.
 */
export function navigatedAway(error: unknown): boolean {
  return error instanceof Error && /Execution context was destroyed|frame was detached|navigating and changing the content/i.test(error.message);
}
