import { z } from 'zod';
import { count, futureDate, money, num, shown, str, text } from './fields.ts';
import type { ScenarioSpec } from './spec.ts';

// Tickets for a named event in a city on a date.

// The search request of this scenario, as drivers and the executor read it (driver/types.ts).
declare module '../driver/types.ts' {
  interface SearchRequests {
    activity: { scenario: 'activity'; venue: string; city: string; date: string; tickets: number; seatType?: string };
  }
}

export const activityParams = z
  .object({
    event_name: text('Event name'),
    city: text('City'),
    event_date: futureDate('Event date'),
    num_tickets: count('Number of tickets', 20),
    seat_type: text('Seat type, e.g. "stalls"').optional(),
    budget_max_per_ticket: money('Maximum price per ticket').optional(),
  })
  .strict();

export const activity = {
  scenario: 'activity',
  params: activityParams,
  request: (p) => ({ scenario: 'activity', venue: str(p.event_name)!, city: str(p.city)!, date: str(p.event_date)!, tickets: num(p.num_tickets)!, seatType: str(p.seat_type) }),
  preferences: (p) => ({ budgetPerUnit: num(p.budget_max_per_ticket) }),
  headcount: (r) => r.tickets,
  describe: (r) => `${r.venue}, ${r.city} on ${r.date}, ${r.tickets} ticket${r.tickets === 1 ? '' : 's'}`,
  unit: 'ticket',
  choice: 'preference',
  aims: (r) => ({ preference: r.seatType }),
  asked: (p) => [
    ['Event', shown(p.event_name)],
    ['City', shown(p.city)],
    ['Date', shown(p.event_date)],
    ['Tickets', shown(p.num_tickets)],
    ['Seats', shown(p.seat_type)],
  ],
  title: (p) => [shown(p.event_name), shown(p.event_date)].filter(Boolean).join(' · '),
  travellers: 'lead',
  held: { venue: 'Event', quantity: 'Tickets', item: 'Seats', dates: 'day' },
  tool: {
    title: 'Book event or activity tickets (preview)',
    description:
      'Start booking tickets for a named event in a city on a date: number of tickets, optionally a seat type and a maximum price per ticket, plus the buyer\'s contact details in profile. ' +
      'The service drives ticketing websites in a real browser and falls back between providers. ',
  },
} satisfies ScenarioSpec<'activity'>;
