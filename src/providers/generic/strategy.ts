import type { DriverPage } from '../../driver/page.ts';
import type { Scenario } from '../../jobs/types.ts';
import type { Availability, Offer, PaymentPage, ReviewPage, SearchRequest, Traveller } from '../../driver/types.ts';

// How the generic driver is put together: each step of the Driver interface is tried by an ordered
// list of strategies (WebMCP tools first, then the page read through web standards). The first
// strategy that answers a step wins; one that declines passes the step to the next.
//
// Answering and declining:
// - A strategy ANSWERS by resolving with the step's value (for `review`/`payment`/`confirmation`,
//   null still is an answer: "I looked, and this is not that page").
// - It DECLINES by resolving with DECLINE (or by not implementing the step at all): "this page
//   offers nothing I can use for this step"; nothing on the page may have changed then.
// - It fails the step by throwing (the executor's failures, or the guard's CardStepReached, which
//   is the pause and must propagate untouched). A throw is never turned into a decline.
// - When every strategy declines, the driver fails the step with evidence (step, URL, what was
//   looked for and what was found).
//
// Offers: the strategy that answered `availability` is asked first to `choose` one of its offers
// (`state.offeredBy`); Offer.key is that strategy's own (prefix it with the strategy's name if it
// could be mistaken for another's).
//
// State: one StepContext.state per attempt (per DriverPage), shared by all strategies, for what
// one step must remember for the next (the request, who offered, strategy-private notes).

export interface GenericProvider {
  id: string;
  name: string;
  scenario: Scenario;
  startUrl: string;
}

export const DECLINE: unique symbol = Symbol('decline');
export type Declined = typeof DECLINE;
export type Answer<T> = Promise<T | Declined>;

export interface AttemptState {
  /** The request of this attempt (set before the first strategy sees `search`). */
  request?: SearchRequest;
  /** Name of the strategy that answered `availability`. */
  offeredBy?: string;
  /** Strategy-private memory, keyed by strategy name. */
  notes: Map<string, unknown>;
}

export interface StepContext {
  page: DriverPage;
  provider: GenericProvider;
  state: AttemptState;
}

export interface Strategy {
  /** Short and unique ("webmcp", "dom"): audit messages and `state.offeredBy` use it. */
  readonly name: string;
  /** Opens provider.startUrl (or goes on from where the page is), fills the search and submits it. */
  search?(ctx: StepContext, request: SearchRequest): Answer<void>;
  availability?(ctx: StepContext): Answer<Availability>;
  choose?(ctx: StepContext, offer: Offer): Answer<void>;
  guestDetails?(ctx: StepContext, traveller: Traveller, request: SearchRequest): Answer<void>;
  review?(ctx: StepContext): Answer<ReviewPage | null>;
  confirmReview?(ctx: StepContext): Answer<void>;
  payment?(ctx: StepContext): Answer<PaymentPage | null>;
  /** Must go through the guard (DriverPage); the guard's refusal (CardStepReached) is the pause. */
  pay?(ctx: StepContext): Answer<void>;
  confirmation?(ctx: StepContext): Answer<string | null>;
  formErrors?(ctx: StepContext): Answer<string[]>;
}
