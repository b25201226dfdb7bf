import { z } from 'zod';
import { says } from './validation.ts';
import { count, fieldsValid, futureDate, money, num, plural, shown, str, text } from './fields.ts';
import type { ScenarioSpec } from './spec.ts';

// A room at a named hotel, from check-in to check-out, for a number of adults.

// The search request of this scenario, as drivers and the executor read it (driver/types.ts).
declare module '../driver/types.ts' {
  interface SearchRequests {
    hotel: { scenario: 'hotel'; venue: string; city: string; checkIn: string; checkOut: string; adults: number; roomPreference?: string };
  }
}

export const hotelParams = z
  .object({
    hotel_name: text('Hotel name'),
    city: text('City'),
    checkin: futureDate('Check-in date'),
    checkout: futureDate('Check-out date'),
    adults: count('Number of adults', 20),
    star_rating: z.number().int(says('must be a whole number')).min(1, says('must be at least 1')).max(5, says('must be at most 5')).describe('Minimum star rating, 1 to 5').optional(),
    neighborhood: text('Neighborhood').optional(),
    budget_max_per_night: money('Maximum price per night').optional(),
    room_preference: text('Room preference, e.g. "king bed, high floor"').optional(),
  })
  .strict()
  .refine((p) => p.checkout > p.checkin, { message: 'checkout must be after checkin', path: ['checkout'], when: fieldsValid('checkin', 'checkout') });

export const hotel = {
  scenario: 'hotel',
  params: hotelParams,
  request: (p) => ({ scenario: 'hotel', venue: str(p.hotel_name)!, city: str(p.city)!, checkIn: str(p.checkin)!, checkOut: str(p.checkout)!, adults: num(p.adults)!, roomPreference: str(p.room_preference) }),
  preferences: (p) => ({ budgetPerUnit: num(p.budget_max_per_night), minStars: num(p.star_rating), neighborhood: str(p.neighborhood) }),
  headcount: (r) => r.adults,
  describe: (r) => `${r.venue}, ${r.city} from ${r.checkIn} to ${r.checkOut} for ${r.adults} adult${r.adults === 1 ? '' : 's'}`,
  unit: 'night',
  choice: 'rated',
  aims: (r) => ({ preference: r.roomPreference }),
  asked: (p) => [
    ['Hotel', shown(p.hotel_name)],
    ['City', shown(p.city)],
    ['Check-in', shown(p.checkin)],
    ['Check-out', shown(p.checkout)],
    ['Guests', plural(p.adults, 'adult', 'adults')],
    ['Room', shown(p.room_preference)],
  ],
  title: (p) => [shown(p.hotel_name), [shown(p.checkin), shown(p.checkout)].filter(Boolean).join(' → ')].filter(Boolean).join(' · '),
  travellers: 'lead',
  held: { venue: 'Hotel', quantity: 'Rooms and guests', item: 'Room', dates: 'stay' },
  tool: {
    title: 'Book a hotel room',
    description:
      'Start booking a room at a named hotel for the user: city, check-in and check-out dates (check-out after check-in) and number of adults, plus the guest\'s contact details in profile. ' +
      'The service drives hotel booking websites in a real browser and falls back between providers. ',
  },
} satisfies ScenarioSpec<'hotel'>;
