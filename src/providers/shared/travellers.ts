import type { DriverPage } from '../../driver/page.ts';
import { type Traveller, travellersOf } from '../../driver/types.ts';
import { fillAll } from './pages.ts';

/** The parts of a passenger's section on an airline's form. */
export type PassengerPart = 'given' | 'family' | 'birth' | 'passport' | 'ktn' | 'country';

/**
 * Every passenger's identity fields, one section each (`selector(n, part)`, n from 1, the lead first),
 * and the contact fields, typed in one round trip; then each passport country chosen from its list.
 */
export async function fillPassengers(page: DriverPage, t: Traveller, selector: (n: number, part: PassengerPart) => string, contact: Array<[string, string]>): Promise<void> {
  const everyone = travellersOf(t);
  if (everyone.some((p) => !p.birthDate || !p.passportNumber || !p.passportCountry)) throw new Error('the profile lacks the passport details a flight needs');
  await fillAll(page, [
    ...everyone.flatMap((p, i): Array<[string, string | undefined]> => [
      [selector(i + 1, 'given'), p.givenName],
      [selector(i + 1, 'family'), p.familyName],
      [selector(i + 1, 'birth'), p.birthDate],
      [selector(i + 1, 'passport'), p.passportNumber],
      [selector(i + 1, 'ktn'), p.knownTravelerNumber],
    ]),
    ...contact,
  ]);
  for (const [i, p] of everyone.entries()) await page.select(selector(i + 1, 'country'), p.passportCountry!);
}
