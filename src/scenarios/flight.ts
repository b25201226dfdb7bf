import { z } from 'zod';
import { says } from './validation.ts';
import { airport, count, fieldsValid, futureDate, money, num, shown, str, text, time24 } from './fields.ts';
import type { ScenarioSpec } from './spec.ts';

// A flight between two airports on a date for a number of passengers, optionally a return fare.

// The search request of this scenario, as drivers and the executor read it (driver/types.ts).
declare module '../driver/types.ts' {
  interface SearchRequests {
    /** returnDate: a return fare, back on that day (the preferences apply to the outbound leg). */
    flight: { scenario: 'flight'; origin: string; destination: string; date: string; passengers: number; airline?: string; departureTime?: string; cabin?: string; returnDate?: string };
  }
}

export const CABIN_CLASSES = ['economy', 'premium_economy', 'business', 'first'] as const;

export const flightParams = z
  .object({
    origin: airport('Origin'),
    dest: airport('Destination'),
    date: futureDate('Departure date'),
    passengers: count('Number of passengers', 9),
    return_date: futureDate('Return date').optional(),
    cabin_class: z.enum(CABIN_CLASSES).describe('Cabin class').optional(),
    targetAirline: text('Preferred airline').optional(),
    targetPrice: money('The most to pay per passenger (a ceiling: no fare within it is no_availability)').optional(),
    targetDepartureTime: time24('Preferred departure time').optional(),
    targetFlightNumber: z.string().regex(/^[A-Za-z0-9]{2}\d{1,4}$/, says('must be a flight number like BA117')).describe('Preferred flight number, e.g. BA117').optional(),
  })
  .strict()
  .refine((p) => p.origin !== p.dest, { message: 'dest must differ from origin', path: ['dest'], when: fieldsValid('origin', 'dest') })
  .refine((p) => p.return_date === undefined || p.return_date >= p.date, {
    message: 'return_date must not be before date',
    path: ['return_date'],
    when: fieldsValid('date', 'return_date'),
  });

export const flight = {
  scenario: 'flight',
  params: flightParams,
  request: (p) => ({
    scenario: 'flight',
    origin: str(p.origin)!,
    destination: str(p.dest)!,
    date: str(p.date)!,
    passengers: num(p.passengers)!,
    airline: str(p.targetAirline),
    departureTime: str(p.targetDepartureTime),
    cabin: str(p.cabin_class),
    returnDate: str(p.return_date),
  }),
  preferences: (p) => ({ targetFlightNumber: str(p.targetFlightNumber)?.replace(/\s+/g, '').toUpperCase(), targetPrice: num(p.targetPrice) }),
  headcount: (r) => r.passengers,
  describe: (r) => `${r.origin} → ${r.destination} on ${r.date}${r.returnDate ? ` and back on ${r.returnDate}` : ''}${r.departureTime ? ` around ${r.departureTime}` : ''}${r.airline ? ` with ${r.airline}` : ''} for ${r.passengers}`,
  unit: 'passenger',
  choice: 'fare',
  aims: (r) => ({ time: r.departureTime }),
  asked: (p) => [
    ['From', shown(p.origin)],
    ['To', shown(p.dest)],
    ['Date', shown(p.date)],
    ['Return', shown(p.return_date)],
    ['Passengers', shown(p.passengers)],
    ['Airline', shown(p.targetAirline)],
    ['Departure', shown(p.targetDepartureTime)],
    ['Cabin', shown(p.cabin_class)],
  ],
  title: (p) => [[shown(p.origin), shown(p.dest)].filter(Boolean).join(' → '), shown(p.date)].filter(Boolean).join(' · '),
  travellers: 'each',
  held: { venue: 'Flight', quantity: 'Passengers', item: 'Cabin', dates: 'flight' },
  tool: {
    title: 'Book a flight (preview)',
    description:
      'Preview. Start booking a flight for the user: origin and destination airports (IATA codes), departure date and number of passengers, optionally a return date, cabin class and a preferred airline, flight number, departure time or price. ' +
      'profile must also carry the passenger\'s dob, passport_number and passport_country; for more than 1 passenger, profile.additional_travellers names the others (passengers − 1 entries, each with the same passport details). The service drives airline booking websites in a real browser and falls back between providers. ' +
      'With return_date the trip is booked as one return fare (both legs held; the preferences choose the way out) on a site that sells return fares; sites that sell one-way fares only are passed over. ',
  },
} satisfies ScenarioSpec<'flight'>;
