import type { DriverPage } from '../../driver/page.ts';
import type { Driver } from '../../driver/types.ts';
import { NotUnderstood } from './dom/not-understood.ts';
import { STRATEGIES } from './strategies.ts';
import { DECLINE, type AttemptState, type GenericProvider, type StepContext, type Strategy } from './strategy.ts';

// The generic driver: books on a website nobody wrote a driver for, from the provider's start URL.
// Each step is offered to the strategies in order (WebMCP tools, then the page read through web
// standards); the first that answers wins. See strategy.ts for how a strategy answers or declines.

export type { GenericProvider } from './strategy.ts';

type StepName = Exclude<keyof Strategy, 'name'>;

export function genericDriver(provider: GenericProvider, strategies: readonly Strategy[] = STRATEGIES): Driver {
  // One state per attempt: each attempt has its own tab, so its own DriverPage.
  const states = new WeakMap<DriverPage, AttemptState>();
  const context = (page: DriverPage): StepContext => {
    let state = states.get(page);
    if (!state) states.set(page, (state = { notes: new Map() }));
    return { page, provider, state };
  };

  async function run<T>(step: StepName, page: DriverPage, call: (s: Strategy, ctx: StepContext) => Promise<T | typeof DECLINE> | undefined, first?: string): Promise<T> {
    const ctx = context(page);
    const ordered = first ? [...strategies.filter((s) => s.name === first), ...strategies.filter((s) => s.name !== first)] : strategies;
    for (const strategy of ordered) {
      const answer = await call(strategy, ctx);
      if (answer === undefined && typeof strategy[step] !== 'function') continue;
      if (answer === DECLINE) continue;
      if (step === 'availability') ctx.state.offeredBy = strategy.name;
      return answer as T;
    }
    throw new NotUnderstood(step, page.url(), `a way to do this step (${strategies.map((s) => s.name).join(', ')})`, 'that every strategy declined it');
  }

  return {
    id: provider.id,
    name: provider.name,
    scenario: provider.scenario,
    readsNames: true,
    async search(page, startUrl, request) {
      context(page).state.request = request;
      // The executor's start URL (the registered one) wins over the one the driver was made with.
      await run('search', page, (s, ctx) => s.search?.({ ...ctx, provider: { ...provider, startUrl: startUrl || provider.startUrl } }, request));
    },
    availability: (page) => run('availability', page, (s, ctx) => s.availability?.(ctx)),
    choose: (page, offer) => run('choose', page, (s, ctx) => s.choose?.(ctx, offer), context(page).state.offeredBy),
    guestDetails: (page, traveller, request) => run('guestDetails', page, (s, ctx) => s.guestDetails?.(ctx, traveller, request)),
    review: (page) => run('review', page, (s, ctx) => s.review?.(ctx)),
    confirmReview: (page) => run('confirmReview', page, (s, ctx) => s.confirmReview?.(ctx)),
    payment: (page) => run('payment', page, (s, ctx) => s.payment?.(ctx)),
    pay: (page) => run('pay', page, (s, ctx) => s.pay?.(ctx)),
    confirmation: (page) => run('confirmation', page, (s, ctx) => s.confirmation?.(ctx)),
    formErrors: (page) => run('formErrors', page, (s, ctx) => s.formErrors?.(ctx)),
  };
}
