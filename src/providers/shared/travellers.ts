import type { Person, Traveller } from '../types.ts';

/** Every traveller of a booking, the lead first: passenger n of a site's form is entry n − 1. */
export function travellersOf(t: Traveller): Person[] {
  return [t, ...(t.additionalTravellers ?? [])];
}
