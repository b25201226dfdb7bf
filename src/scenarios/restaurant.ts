import { z } from 'zod';
import { count, futureDate, money, num, plural, shown, str, text, time24 } from './fields.ts';
import type { ScenarioSpec } from './spec.ts';

// A table at a named restaurant, on a date at a time, for a party.

// The search request of this scenario, as drivers and the executor read it (driver/types.ts).
declare module '../driver/types.ts' {
  interface SearchRequests {
    restaurant: { scenario: 'restaurant'; venue: string; city: string; date: string; time: string; partySize: number };
  }
}

export const restaurantParams = z
  .object({
    restaurant_name: text('Restaurant name'),
    city: text('City'),
    date: futureDate('Date'),
    time: time24('Time'),
    covers: count('Number of guests', 50),
    cuisine: text('Cuisine').optional(),
    neighborhood: text('Neighborhood').optional(),
    budget_per_person: money('Budget per person').optional(),
  })
  .strict();

export const restaurant = {
  scenario: 'restaurant',
  params: restaurantParams,
  request: (p) => ({ scenario: 'restaurant', venue: str(p.restaurant_name)!, city: str(p.city)!, date: str(p.date)!, time: str(p.time)!, partySize: num(p.covers)! }),
  preferences: (p) => ({ budgetPerUnit: num(p.budget_per_person), cuisine: str(p.cuisine), neighborhood: str(p.neighborhood) }),
  headcount: (r) => r.partySize,
  describe: (r) => `${r.venue}, ${r.city} on ${r.date} at ${r.time} for ${r.partySize}`,
  unit: 'cover',
  choice: 'time',
  aims: (r) => ({ time: r.time }),
  asked: (p) => [
    ['Restaurant', shown(p.restaurant_name)],
    ['City', shown(p.city)],
    ['Date', shown(p.date)],
    ['Time', shown(p.time)],
    ['Party', plural(p.covers, 'person', 'people')],
  ],
  title: (p) => [shown(p.restaurant_name), [shown(p.date), shown(p.time)].filter(Boolean).join(' ')].filter(Boolean).join(' · '),
  travellers: 'lead',
  held: { venue: 'Restaurant', quantity: 'Party', item: 'Table', dates: 'day' },
  tool: {
    title: 'Book a restaurant table',
    description:
      'Start booking a table at a named restaurant for the user: city, date, time and number of guests (covers), plus the guest\'s contact details in profile. ' +
      'The service drives the restaurant\'s booking websites in a real browser and falls back between booking providers; if the exact time is taken it may shift it by up to consent.maxTimeAdjustmentMinutes (default 90). ',
  },
} satisfies ScenarioSpec<'restaurant'>;
