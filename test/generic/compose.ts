import { ProviderFailure } from '../../src/driver/failures.ts';
import type { DriverPage } from '../../src/driver/page.ts';
import { DECLINE, type AttemptState, type GenericProvider, type Strategy } from '../../src/providers/generic/strategy.ts';
import type { Driver } from '../../src/driver/types.ts';
import type { ProviderId } from '../../src/providers/ids.ts';

// For the WebMCP strategy's tests: a Driver made of strategies tried in order, as the generic driver
// composes them (strategy.ts), and the pages of the test's own WebMCP site read by their ids, in
// place of the page-reading strategy the generic driver puts after the WebMCP one.

export function composedDriver(provider: GenericProvider, strategies: Strategy[]): Driver {
  const states = new WeakMap<DriverPage, AttemptState>();
  const stateOf = (page: DriverPage) => {
    let s = states.get(page);
    if (!s) states.set(page, (s = { notes: new Map() }));
    return s;
  };
  type Step = Exclude<keyof Strategy, 'name'>;
  const run = async <T>(step: Step, page: DriverPage, ...args: unknown[]): Promise<T> => {
    const ctx = { page, provider, state: stateOf(page) };
    for (const s of strategies) {
      const fn = s[step] as ((...a: unknown[]) => Promise<T | typeof DECLINE>) | undefined;
      if (!fn) continue;
      const answer = await fn.call(s, ctx, ...args);
      if (answer === DECLINE) continue;
      if (step === 'availability') ctx.state.offeredBy = s.name;
      return answer;
    }
    throw new ProviderFailure('unexpected_page', `no strategy could do the step ${step} on ${page.url()}`);
  };
  return {
    id: provider.id as ProviderId,
    name: provider.name,
    scenario: provider.scenario,
    search: (page, _base, request) => {
      stateOf(page).request = request;
      return run('search', page, request);
    },
    availability: (page) => run('availability', page),
    choose: (page, offer) => run('choose', page, offer),
    guestDetails: (page, traveller, request) => run('guestDetails', page, traveller, request),
    review: (page) => run('review', page),
    confirmReview: (page) => run('confirmReview', page),
    payment: (page) => run('payment', page),
    pay: (page) => run('pay', page),
    confirmation: (page) => run('confirmation', page),
    formErrors: (page) => run('formErrors', page),
  };
}

/** The test site's checkout and confirmation pages, by their ids. */
export const sitePages: Strategy = {
  name: 'site-pages',
  async review({ page }) {
    if (!(await page.exists('#held'))) return null;
    const text = async (s: string) => (await page.text(s)) ?? '';
    return { held: { venue: await text('#venue'), when: await text('#when'), quantity: await text('#party'), price: await text('#price'), cardOnFile: await text('#card') }, noCardStep: false };
  },
  // Review and payment are one page: nothing to press between them.
  async confirmReview() {
    return undefined;
  },
  async payment({ page }) {
    if (!(await page.exists('#cvc'))) return null;
    return { price: (await page.text('#price')) ?? undefined, cardOnFile: (await page.text('#card')) ?? undefined, cardField: '#cvc' };
  },
  async pay({ page }) {
    await page.submit('#pay', 'pay');
    return undefined;
  },
  async confirmation({ page }) {
    return page.text('#reference');
  },
  async formErrors({ page }) {
    const alert = await page.text('[role=alert]');
    return alert ? [alert] : [];
  },
};
