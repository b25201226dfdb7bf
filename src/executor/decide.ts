import type { Consent } from '../jobs/schemas.ts';
import type { Offer } from '../driver/types.ts';
import { specOf, type Aims, type ChoiceRule } from '../scenarios/index.ts';
import { venueAsked } from './held.ts';
import type { BookingPlan } from './request.ts';

// Choosing among a provider's options within the person's consent. Time shifts happen only when
// consent.allowTimeAdjustment is set and stay within maxTimeAdjustmentMinutes; the nearest acceptable
// time wins (the later one on a tie: a table a little later rather than one before you planned to
// arrive). Budgets are hard limits (an option whose price cannot be read is outside any budget);
// room and seat preferences are wishes. Which way of choosing a scenario takes is its spec's.

export type Choice =
  | { kind: 'offer'; offer: Offer; adjusted?: { from: string; to: string; minutes: number }; why: string }
  | { kind: 'none'; why: string };

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

function signed(delta: number): string {
  return `${Math.abs(delta)} minutes ${delta > 0 ? 'later' : 'earlier'}`;
}

/** Exact time, or the nearest acceptable one under consent. */
function byTime(wanted: string, offers: Offer[], consent: Consent, what: string): Choice {
  const timed = offers.filter((o) => o.time);
  const exact = timed.find((o) => o.time === wanted && o.available);
  if (exact) return { kind: 'offer', offer: exact, why: `${what} at ${wanted} is available` };
  const free = timed.filter((o) => o.available);
  if (free.length === 0) return { kind: 'none', why: `no ${what} is available on that date` };
  const target = minutes(wanted);
  const ranked = free
    .map((o) => ({ o, delta: minutes(o.time!) - target }))
    .sort((a, b) => Math.abs(a.delta) - Math.abs(b.delta) || b.delta - a.delta);
  const nearest = ranked[0]!;
  const offered = ranked.map((r) => r.o.time).join(', ');
  if (!consent.allowTimeAdjustment) {
    return { kind: 'none', why: `${wanted} is not available (free: ${offered}) and the consent does not allow adjusting the time` };
  }
  if (Math.abs(nearest.delta) > consent.maxTimeAdjustmentMinutes) {
    return { kind: 'none', why: `${wanted} is not available; the nearest free time, ${nearest.o.time}, is ${signed(nearest.delta)}, beyond the ${consent.maxTimeAdjustmentMinutes} minutes the consent allows` };
  }
  return {
    kind: 'offer',
    offer: nearest.o,
    adjusted: { from: wanted, to: nearest.o.time!, minutes: nearest.delta },
    why: `${wanted} is full; ${nearest.o.time} is the nearest free time (${signed(nearest.delta)}), within the ${consent.maxTimeAdjustmentMinutes} minutes the consent allows`,
  };
}

/**
 * Offers priced per unit: a site that shows only an option's total for everyone (JetDeck's fares, a
 * restaurant's deposit for the table) has each person's share as its price per unit.
 */
function perUnit(offers: Offer[], units: number): Offer[] {
  return offers.map((o) => (o.unitPrice === undefined && o.total !== undefined ? { ...o, unitPrice: o.total / units } : o));
}

function price(o: Offer): number {
  return o.unitPrice ?? o.total ?? Number.POSITIVE_INFINITY;
}

/** Cheapest available option matching the preference words if any does; within the budget per unit. */
function byPreference(offers: Offer[], preference: string | undefined, budget: number | undefined, unit: string): Choice {
  let free = offers.filter((o) => o.available);
  if (free.length === 0) return { kind: 'none', why: 'every option is sold out' };
  if (budget !== undefined) {
    // A price the page does not let us read may be any price: with a budget, it is not acceptable.
    const within = free.filter((o) => o.unitPrice !== undefined && o.unitPrice <= budget);
    if (within.length === 0) {
      const priced = free.filter((o) => o.unitPrice !== undefined).sort((a, b) => a.unitPrice! - b.unitPrice!);
      const unreadable = free.length - priced.length;
      const details = [priced[0] ? `cheapest: ${priced[0].priceText ?? priced[0].unitPrice}` : null, unreadable ? `${unreadable} with no readable price` : null].filter(Boolean).join('; ');
      return { kind: 'none', why: `nothing available within the budget of ${budget} per ${unit} (${details})` };
    }
    free = within;
  }
  const words = (preference ?? '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3);
  // The option matching the most words of the preference, then the cheapest of those.
  const score = (o: Offer) => words.filter((w) => `${o.label} ${o.description ?? ''}`.toLowerCase().includes(w)).length;
  const top = Math.max(0, ...free.map(score));
  const matching = top > 0 ? free.filter((o) => score(o) === top) : [];
  const pool = matching.length ? matching : free;
  const best = [...pool].sort((a, b) => price(a) - price(b))[0]!;
  const why = matching.length
    ? `${best.label} matches the preference "${preference}" best and is the cheapest that does`
    : words.length
      ? `nothing matches the preference "${preference}"; ${best.label} is the cheapest available`
      : `${best.label} is the cheapest available`;
  return { kind: 'offer', offer: best, why };
}

/**
 * A flight: the one asked for by number, else the nearest acceptable departure, else the cheapest.
 * targetPrice is a ceiling per passenger: a fare above it (or one whose price cannot be read) is
 * never chosen, and among equally good matches the cheaper fare wins. When the ceiling leaves
 * nothing, the reason names the cheapest fare seen.
 */
function chooseFlight(plan: BookingPlan, departureTime: string | undefined, unit: string, offers: Offer[]): Choice {
  const ceiling = plan.preferences.targetPrice;
  const fits = (o: Offer) => ceiling === undefined || (o.unitPrice !== undefined && o.unitPrice <= ceiling);
  const cheapestSeen = () => {
    const priced = offers.filter((o) => o.available && o.unitPrice !== undefined).sort((a, b) => a.unitPrice! - b.unitPrice!)[0];
    return priced ? `the cheapest fare seen is ${priced.priceText ?? priced.unitPrice} (${priced.label})` : 'no fare with a readable price was seen';
  };
  const wanted = plan.preferences.targetFlightNumber;
  if (wanted) {
    const found = offers.find((o) => o.flightNumber?.replace(/\s+/g, '').toUpperCase() === wanted);
    if (!found?.available) return { kind: 'none', why: found ? `flight ${found.label} is sold out` : `flight ${wanted} is not offered on that date` };
    if (!fits(found)) return { kind: 'none', why: `flight ${found.label} costs ${found.priceText ?? 'an unreadable price'} per passenger, above the targetPrice of ${ceiling}` };
    return { kind: 'offer', offer: found, why: `flight ${found.label} is the one asked for${ceiling === undefined ? '' : `, within the targetPrice of ${ceiling}`}` };
  }
  if (departureTime) {
    // Cheapest first: on equal times the cheaper fare is found first.
    const pool = offers.filter(fits).sort((a, b) => price(a) - price(b));
    const choice = byTime(departureTime, pool, plan.consent, 'a flight');
    if (choice.kind === 'none' && ceiling !== undefined && pool.length < offers.filter((o) => o.available).length) {
      return { kind: 'none', why: `${choice.why} within the targetPrice of ${ceiling} per passenger; ${cheapestSeen()}` };
    }
    return choice.kind === 'offer' && ceiling !== undefined ? { ...choice, why: `${choice.why}, within the targetPrice of ${ceiling}` } : choice;
  }
  const choice = byPreference(offers, undefined, ceiling, unit);
  return choice.kind === 'none' && ceiling !== undefined ? { kind: 'none', why: `${choice.why}: the targetPrice of ${ceiling} per passenger is a ceiling` } : choice;
}

/**
 * A restaurant: budget_per_person bounds the deposit or set price per cover wherever the site shows
 * one (a table with no price shown is not excluded by it); then the time, as asked or nearest.
 */
function chooseTable(plan: BookingPlan, time: string, partySize: number, unit: string, offers: Offer[]): Choice {
  const budget = plan.preferences.budgetPerUnit;
  if (budget === undefined) return byTime(time, offers, plan.consent, 'a table');
  const priced = perUnit(offers, partySize);
  const within = priced.filter((o) => (o.unitPrice ?? 0) <= budget);
  const dear = priced.filter((o) => o.available && !within.includes(o)).sort((a, b) => a.unitPrice! - b.unitPrice!);
  if (!within.some((o) => o.available) && dear.length) {
    return { kind: 'none', why: `every free table costs more per ${unit} than the budget_per_person of ${budget} (cheapest: ${dear[0]!.priceText ?? dear[0]!.unitPrice} for ${dear[0]!.label})` };
  }
  const choice = byTime(time, within, plan.consent, 'a table within the budget');
  return choice.kind === 'offer' && dear.length ? { ...choice, why: `${choice.why}; passed over for costing more per ${unit} than the budget_per_person of ${budget}: ${dear.map((o) => o.label).join(', ')}` } : choice;
}

/** A hotel: star_rating is a minimum, read from the site; a rating the site does not show cannot meet it. */
function chooseRoom(plan: BookingPlan, preference: string | undefined, unit: string, offers: Offer[]): Choice {
  const min = plan.preferences.minStars;
  if (min !== undefined) {
    const rated = offers.filter((o) => o.stars !== undefined && o.stars >= min);
    if (rated.length === 0) {
      const shown = offers.find((o) => o.stars !== undefined)?.stars;
      return { kind: 'none', why: shown === undefined ? `the site shows no star rating, so the star_rating of at least ${min} cannot be checked` : `the property is rated ${shown} star${shown === 1 ? '' : 's'}, below the star_rating of at least ${min} asked` };
    }
    const choice = byPreference(rated, preference, plan.preferences.budgetPerUnit, unit);
    return choice.kind === 'offer' ? { ...choice, why: `${choice.why}; the property is rated ${choice.offer.stars} stars (at least ${min} asked)` } : choice;
  }
  return byPreference(offers, preference, plan.preferences.budgetPerUnit, unit);
}

/**
 * Each way of choosing, by the name a scenario's spec gives it (src/scenarios/spec.ts, ChoiceRule):
 * what the spec aims at, how many the booking is for and what a price is per.
 */
const RULES: Record<ChoiceRule, (plan: BookingPlan, aims: Aims, headcount: number, unit: string, offers: Offer[]) => Choice> = {
  time: (plan, aims, headcount, unit, offers) => chooseTable(plan, aims.time!, headcount, unit, offers),
  fare: (plan, aims, headcount, unit, offers) => chooseFlight(plan, aims.time, unit, perUnit(offers, headcount)),
  rated: (plan, aims, _headcount, unit, offers) => chooseRoom(plan, aims.preference, unit, offers),
  preference: (plan, aims, _headcount, unit, offers) => byPreference(offers, aims.preference, plan.preferences.budgetPerUnit, unit),
};

export function choose(plan: BookingPlan, offers: Offer[]): Choice {
  const spec = specOf(plan.request.scenario);
  return RULES[spec.choice](plan, spec.aims(plan.request), spec.headcount(plan.request), spec.unit, offers);
}

const facts = (v: Offer) => `${v.label} (${[v.cuisine, v.neighborhood, v.stars ? `${v.stars}-star` : ''].filter(Boolean).join(', ') || 'nothing stated'})`;
const says = (stated: string | undefined, wanted: string) => stated !== undefined && (stated.toLowerCase().includes(wanted.toLowerCase()) || wanted.toLowerCase().includes(stated.toLowerCase()));

/**
 * The venue asked for is not on the site, which suggests others. Only when the consent allows
 * switching venues, and only by what the request asks (cuisine, neighborhood, a hotel's star_rating):
 * the suggestion matching most of it, the site's order breaking ties. The reason quotes the venue
 * chosen and the ones passed over, as the site describes them.
 */
export function chooseVenue(plan: BookingPlan, venues: Offer[]): Choice {
  const asked = venueAsked(plan.request);
  const listed = venues.map(facts).join('; ');
  if (!plan.consent.allowVenueSwitch) return { kind: 'none', why: `${asked} is not on the site (it suggests ${listed}), and the consent does not allow switching venues (consent.allowVenueSwitch is false)` };
  const { cuisine, neighborhood, minStars } = plan.preferences;
  const wants: Array<[string, string, (v: Offer) => string | undefined]> = [];
  if (cuisine) wants.push(['cuisine', cuisine, (v) => v.cuisine]);
  if (neighborhood) wants.push(['neighborhood', neighborhood, (v) => v.neighborhood]);
  if (wants.length === 0 && minStars === undefined) return { kind: 'none', why: `${asked} is not on the site; it suggests ${listed}, and the request gives no cuisine, neighborhood or star_rating to choose among them by` };
  const pool = venues.filter((v) => v.available && (minStars === undefined || (v.stars !== undefined && v.stars >= minStars)));
  if (pool.length === 0) return { kind: 'none', why: `${asked} is not on the site, and none of the venues it suggests is rated at least ${minStars} stars (${listed})` };
  const score = (v: Offer) => wants.filter(([, wanted, of]) => says(of(v), wanted)).length;
  const top = Math.max(...pool.map(score));
  if (wants.length > 0 && top === 0) return { kind: 'none', why: `${asked} is not on the site, and none of the venues it suggests matches the ${wants.map(([field, wanted]) => `${field} "${wanted}"`).join(' or ')} asked (${listed})` };
  const best = pool.find((v) => score(v) === top)!;
  const matched = [...wants.filter(([, wanted, of]) => says(of(best), wanted)).map(([field, wanted]) => `the ${field} "${wanted}"`), ...(minStars === undefined ? [] : [`at least ${minStars} stars`])];
  const others = venues.filter((v) => v !== best).map(facts);
  return { kind: 'offer', offer: best, why: `${asked} is not on the site; ${facts(best)} has ${matched.join(' and ')}${others.length ? `; passed over: ${others.join('; ')}` : ''}` };
}
