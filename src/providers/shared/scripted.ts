import type { DriverPage, Row } from '../../driver/page.ts';
import type { Scenario } from '../../jobs/types.ts';
import type { Driver, Held, Offer, SearchRequest, Traveller } from '../../driver/types.ts';
import { chooseSuggested, fillAll, gate, holdDeadline, texts } from './pages.ts';
import { starsOf } from './stars.ts';
import { fillPassengers, type PassengerPart } from './travellers.ts';

// The one shape of the sandbox sites' scripted drivers: search form, availability page, option,
// guest details, review, payment, confirmation. Each site declares its selectors and the little it
// reads its own way (its option rows, its review page); the steps are written here once.

/** A control to press, and what pressing it does (in the guard's log and the audit). */
export type Press = readonly [selector: string, what: string];

/** The request of the site's scenario. */
export type RequestOf<S extends Scenario> = Extract<SearchRequest, { scenario: S }>;

/** What a review page states, but the hold deadline (read from `hold`). */
export type HeldOnReview = Omit<Held, 'cardOnFile' | 'holdExpiresAt'>;

/** The guest form: one person's four fields. */
interface GuestForm {
  given: string;
  family: string;
  email: string;
  phone: string;
}

/** The passenger form: a section per passenger (`section(n, part)`, n from 1) and the contact fields. */
interface PassengerForm {
  section: (n: number, part: PassengerPart) => string;
  email: string;
  phone: string;
}

export interface ScriptedSite<S extends Scenario> {
  id: string;
  name: string;
  scenario: S;
  search: {
    /** Each field with its value (one without a value is left as the site set it). */
    fields: (request: RequestOf<S>) => Array<[string, string | number | undefined]>;
    /** Lists to choose from after the typing, each with its value (one without is left). */
    lists?: (request: RequestOf<S>) => Array<[string, string | undefined]>;
    submit: Press;
  };
  availability: {
    /** The element listing the options, and the site's own "nothing available" notice. */
    offers: string;
    none: string;
    /** One row per option, with the named cells `offer` reads. */
    rows: string;
    cells?: Record<string, string>;
    /** The element whose data-stars states the hotel's rating (given to every option). */
    rating?: string;
    offer: (row: Row) => Offer;
  };
  /** The site suggests other venues when the one asked for is not on it. */
  suggestsVenues?: boolean;
  /** Choosing an option: a radio to check first, where the site has them, then the control to press. */
  choose: (offer: Offer) => { check?: string; press: Press };
  guests: (GuestForm | PassengerForm) & { submit: Press };
  /** The element stating the hold deadline (review and payment pages). */
  hold: string;
  review: {
    page: string;
    held: (page: DriverPage) => Promise<HeldOnReview>;
    /** The control that books without a card (its presence says so), and the one on to payment. */
    confirm: Press;
    next: Press;
  };
  payment: {
    form: string;
    /** The element stating the amount, or how the page is read for it. */
    price: string | ((page: DriverPage) => Promise<string | undefined>);
    cardOnFile: string;
    cardField: string;
    pay: Press;
  };
  /** The element whose data-confirmation-code holds the booking's code. */
  confirmation: string;
  /** Validation messages. */
  formErrors: string;
}

const BOOKS: Record<Scenario, string> = { restaurant: 'restaurants', hotel: 'hotels', flight: 'flights', activity: 'activities' };

/** A driver for a sandbox site, from its declaration. */
export function scriptedDriver<S extends Scenario>(site: ScriptedSite<S>): Driver {
  const press = (page: DriverPage, [selector, what]: Press) => page.submit(selector, what);
  const { availability: listed, review, payment } = site;
  const fillGuests = (page: DriverPage, t: Traveller) => ('section' in site.guests
    // One section per passenger, in the order the profile names them (the lead first).
    ? fillPassengers(page, t, site.guests.section, [[site.guests.email, t.email], [site.guests.phone, t.phone]])
    : fillAll(page, [[site.guests.given, t.givenName], [site.guests.family, t.familyName], [site.guests.email, t.email], [site.guests.phone, t.phone]]));

  return {
    id: site.id,
    name: site.name,
    scenario: site.scenario,

    async search(page, startUrl, request) {
      if (request.scenario !== site.scenario) throw new Error(`${site.name} books ${BOOKS[site.scenario]} only`);
      const r = request as RequestOf<S>;
      await page.goto(startUrl);
      await fillAll(page, site.search.fields(r));
      for (const [selector, value] of site.search.lists?.(r) ?? []) if (value) await page.select(selector, value);
      await press(page, site.search.submit);
    },

    // The sign-in wall and the CAPTCHA are the sandbox's shared markup, named after the site.
    availability: (page) =>
      gate(page, { offers: listed.offers, none: listed.none, loginWall: `#${site.id}-login-wall`, captcha: `#${site.id}-captcha` }, async () => {
        const stars = listed.rating ? starsOf(await page.attr(listed.rating, 'data-stars')) : undefined;
        return (await page.rows(listed.rows, listed.cells)).map((row) => ({ ...listed.offer(row), ...(stars ? { stars } : {}) }));
      }),

    ...(site.suggestsVenues ? { chooseVenue: chooseSuggested } : {}),

    async choose(page, offer) {
      const { check, press: control } = site.choose(offer);
      if (check) await page.check(check);
      await press(page, control);
    },

    async guestDetails(page, t) {
      await fillGuests(page, t);
      await press(page, site.guests.submit);
    },

    async review(page) {
      if (!(await page.exists(review.page))) return null;
      const held = await review.held(page);
      return { held: { ...held, holdExpiresAt: await holdDeadline(page, site.hold) }, noCardStep: await page.exists(review.confirm[0]) };
    },

    async confirmReview(page) {
      await press(page, (await page.exists(review.confirm[0])) ? review.confirm : review.next);
    },

    async payment(page) {
      if (!(await page.exists(payment.form))) return null;
      return {
        price: typeof payment.price === 'string' ? ((await page.text(payment.price)) ?? undefined) : await payment.price(page),
        cardOnFile: (await page.text(payment.cardOnFile)) ?? undefined,
        holdExpiresAt: await holdDeadline(page, site.hold),
        cardField: payment.cardField,
      };
    },

    async pay(page) {
      await press(page, payment.pay);
    },

    confirmation: (page) => page.attr(site.confirmation, 'data-confirmation-code'),
    formErrors: (page) => texts(page, site.formErrors),
  };
}
