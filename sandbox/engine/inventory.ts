/**
 * Scenario logic shared by all providers: parsing/validating search and guest
 * forms, detecting the behaviour word, and generating deterministic options
 * and prices from the inputs.
 */
import type {
  Behaviour, FormState, GuestDetails, Option, Passenger, Scenario, SearchQuery,
} from './types.ts';

/** Form field names of the search form, per scenario (identical on every provider). */
export const SEARCH_FIELDS: Record<Scenario, readonly string[]> = {
  restaurant: ['restaurant_name', 'city', 'date', 'time', 'party_size'],
  hotel: ['hotel_name', 'city', 'check_in', 'check_out', 'adults', 'room_preference'],
  flight: ['origin', 'destination', 'date', 'passengers', 'airline', 'departure_time', 'cabin', 'return_date'],
  activity: ['event_name', 'city', 'event_date', 'tickets', 'seat_type'],
};

/** The field whose words trigger behaviours. */
export const VENUE_FIELD: Record<Scenario, string> = {
  restaurant: 'restaurant_name',
  hotel: 'hotel_name',
  flight: 'airline',
  activity: 'event_name',
};

export const CABINS = ['economy', 'premium_economy', 'business', 'first'] as const;
export const CABIN_LABELS: Record<string, string> = {
  economy: 'Economy',
  premium_economy: 'Premium Economy',
  business: 'Business',
  first: 'First',
};

export const COUNTRIES: ReadonlyArray<[string, string]> = [
  ['AU', 'Australia'], ['AT', 'Austria'], ['BE', 'Belgium'], ['BR', 'Brazil'], ['CA', 'Canada'],
  ['CH', 'Switzerland'], ['CN', 'China'], ['DE', 'Germany'], ['DK', 'Denmark'], ['ES', 'Spain'],
  ['FI', 'Finland'], ['FR', 'France'], ['GB', 'United Kingdom'], ['GR', 'Greece'], ['IE', 'Ireland'],
  ['IN', 'India'], ['IT', 'Italy'], ['JP', 'Japan'], ['KR', 'South Korea'], ['MX', 'Mexico'],
  ['NL', 'Netherlands'], ['NO', 'Norway'], ['NZ', 'New Zealand'], ['PL', 'Poland'], ['PT', 'Portugal'],
  ['SE', 'Sweden'], ['SG', 'Singapore'], ['US', 'United States'], ['ZA', 'South Africa'],
];

const BEHAVIOUR_PATTERNS: ReadonlyArray<[Behaviour, RegExp]> = [
  ['outage', /\boutage\b/i],
  ['flaky', /\bflaky\b/i],
  ['captcha', /\bcaptcha\b/i],
  ['members', /\bmembers\b/i],
  ['broken', /\bbroken\b/i],
  ['sold-out', /\bsold[\s_-]*out\b/i],
  ['busy', /\bbusy\b/i],
  ['walk-in', /\bwalk[\s_-]*in\b/i],
  ['sister', /\bsister\b/i],
  ['missing', /\bmissing\b/i],
];

export function detectBehaviour(venue: string): Behaviour {
  for (const [b, re] of BEHAVIOUR_PATTERNS) if (re.test(venue)) return b;
  return 'normal';
}

export function venueOf(q: SearchQuery): string {
  switch (q.scenario) {
    case 'restaurant': return q.restaurantName;
    case 'hotel': return q.hotelName;
    case 'flight': return q.airline;
    case 'activity': return q.eventName;
  }
}

/**
 * Sister: the venue named is not on this site, which offers its sister venue instead, under another
 * name: the word "Sister" dropped and " Annex" added (airlines: " Connect", a regional partner).
 */
export function sisterVenue(q: SearchQuery): SearchQuery {
  const name = (venue: string, suffix: string) => `${venue.replace(/\bsister\b/gi, ' ').replace(/\s+/g, ' ').trim() || 'Grand'} ${suffix}`;
  switch (q.scenario) {
    case 'restaurant': return { ...q, restaurantName: name(q.restaurantName, 'Annex') };
    case 'hotel': return { ...q, hotelName: name(q.hotelName, 'Annex') };
    case 'flight': return { ...q, airline: name(q.airline, 'Connect') };
    case 'activity': return { ...q, eventName: name(q.eventName, 'Annex') };
  }
}

export function dateOf(q: SearchQuery): string {
  switch (q.scenario) {
    case 'restaurant': return q.date;
    case 'hotel': return q.checkIn;
    case 'flight': return q.date;
    case 'activity': return q.eventDate;
  }
}

/** FNV-1a, 32 bit: deterministic "randomness" from inputs. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function toMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

export function fromMinutes(total: number): string {
  const t = ((total % 1440) + 1440) % 1440;
  return `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
}

function isDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function isTime(v: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(v);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function intField(values: Record<string, string>, errors: Record<string, string>, name: string, label: string, min: number, max: number): number {
  const raw = values[name] ?? '';
  const n = Number(raw);
  if (raw === '' || !Number.isInteger(n) || n < min || n > max) {
    errors[name] = `${label} must be a whole number from ${min} to ${max}.`;
    return min;
  }
  return n;
}

function required(values: Record<string, string>, errors: Record<string, string>, name: string, label: string): string {
  const v = (values[name] ?? '').trim();
  if (v === '') errors[name] = `${label} is required.`;
  return v;
}

function dateField(values: Record<string, string>, errors: Record<string, string>, name: string, label: string): string {
  const v = required(values, errors, name, label);
  if (v !== '' && !isDate(v)) errors[name] = `${label} must be a date (YYYY-MM-DD).`;
  return v;
}

function timeField(values: Record<string, string>, errors: Record<string, string>, name: string, label: string, optional: boolean): string {
  const v = (values[name] ?? '').trim();
  if (v === '') {
    if (!optional) errors[name] = `${label} is required.`;
    return '';
  }
  if (!isTime(v)) errors[name] = `${label} must be a time (HH:MM, 24-hour).`;
  return v;
}

/** Reads the search form fields of a scenario from a form body (or query string). */
export function readSearchForm(scenario: Scenario, form: URLSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of SEARCH_FIELDS[scenario]) values[name] = (form.get(name) ?? '').trim();
  return values;
}

export function parseSearch(scenario: Scenario, values: Record<string, string>): { query: SearchQuery | null; state: FormState } {
  const errors: Record<string, string> = {};
  let query: SearchQuery;
  switch (scenario) {
    case 'restaurant':
      query = {
        scenario,
        restaurantName: required(values, errors, 'restaurant_name', 'Restaurant'),
        city: required(values, errors, 'city', 'City'),
        date: dateField(values, errors, 'date', 'Date'),
        time: timeField(values, errors, 'time', 'Time', false),
        partySize: intField(values, errors, 'party_size', 'Party size', 1, 20),
      };
      break;
    case 'hotel': {
      const checkIn = dateField(values, errors, 'check_in', 'Check-in');
      const checkOut = dateField(values, errors, 'check_out', 'Check-out');
      if (!errors.check_in && !errors.check_out) {
        const nights = daysBetween(checkIn, checkOut);
        if (nights < 1) errors.check_out = 'Check-out must be after check-in.';
        else if (nights > 30) errors.check_out = 'Stays are limited to 30 nights.';
      }
      query = {
        scenario,
        hotelName: required(values, errors, 'hotel_name', 'Hotel'),
        city: required(values, errors, 'city', 'City'),
        checkIn,
        checkOut,
        adults: intField(values, errors, 'adults', 'Adults', 1, 8),
        roomPreference: (values.room_preference ?? '').trim(),
      };
      break;
    }
    case 'flight': {
      const cabin = (values.cabin ?? '').trim().toLowerCase().replace(/[\s-]+/g, '_');
      if (cabin !== '' && !(CABINS as readonly string[]).includes(cabin)) errors.cabin = 'Choose a cabin from the list.';
      const origin = required(values, errors, 'origin', 'From');
      const destination = required(values, errors, 'destination', 'To');
      if (origin && destination && origin.toLowerCase() === destination.toLowerCase()) errors.destination = 'Destination must differ from origin.';
      const date = dateField(values, errors, 'date', 'Departure date');
      // A return date asks for a return fare; empty is one way.
      const returnDate = (values.return_date ?? '').trim() === '' ? '' : dateField(values, errors, 'return_date', 'Return date');
      if (returnDate && date && !errors.return_date && !errors.date && returnDate < date) errors.return_date = 'Return date must not be before the departure date.';
      query = {
        scenario,
        origin,
        destination,
        date,
        passengers: intField(values, errors, 'passengers', 'Passengers', 1, 9),
        airline: (values.airline ?? '').trim(),
        departureTime: timeField(values, errors, 'departure_time', 'Preferred departure time', true),
        cabin,
        returnDate,
      };
      break;
    }
    case 'activity':
      query = {
        scenario,
        eventName: required(values, errors, 'event_name', 'Event'),
        city: required(values, errors, 'city', 'City'),
        eventDate: dateField(values, errors, 'event_date', 'Event date'),
        tickets: intField(values, errors, 'tickets', 'Tickets', 1, 10),
        seatType: (values.seat_type ?? '').trim(),
      };
      break;
  }
  const state = { values, errors };
  return { query: Object.keys(errors).length ? null : query, state };
}

const RESTAURANT_AREAS = ['Dining room', 'Terrace', 'Chef\'s counter', 'Bar'];
const HOTEL_ROOMS: ReadonlyArray<[string, string, number]> = [
  ['Standard Double Room', '1 double bed · 18 m² · city view', 100],
  ['Deluxe King Room', '1 king bed · 26 m² · bathtub', 145],
  ['Junior Suite', '1 king bed + sofa bed · 38 m² · lounge area', 210],
];
const SECTIONS: ReadonlyArray<[string, string, number]> = [
  ['Standard seating', 'Balcony rows, good view', 100],
  ['Premium seating', 'Stalls, rows A–H', 180],
  ['VIP box', 'Private box, welcome drink', 350],
];
const NEIGHBOURHOODS = ['Old Town', 'Riverside', 'Harbour', 'Market Quarter', 'University', 'Station'];
const CUISINES = ['Italian', 'Japanese', 'French', 'Indian', 'Mexican', 'Nordic'];

/**
 * Missing: the venue named is not on the site, which suggests these instead (the same on every site
 * of the scenario), each with what a person chooses by: cuisine, neighbourhood, star rating.
 */
export const ALTERNATIVES = {
  restaurant: [
    { name: 'Trattoria Verde', cuisine: 'Italian', neighbourhood: 'Old Town', stars: 0 },
    { name: 'Sakura House', cuisine: 'Japanese', neighbourhood: 'Harbour', stars: 0 },
    { name: 'Bistro Lumière', cuisine: 'French', neighbourhood: 'Riverside', stars: 0 },
  ],
  hotel: [
    { name: 'Harbour View Hotel', cuisine: '', neighbourhood: 'Harbour', stars: 4 },
    { name: 'Old Town Inn', cuisine: '', neighbourhood: 'Old Town', stars: 3 },
    { name: 'Riverside Suites', cuisine: '', neighbourhood: 'Riverside', stars: 5 },
  ],
} as const;

const known = (name: string) => [...ALTERNATIVES.restaurant, ...ALTERNATIVES.hotel].find((a) => a.name.toLowerCase() === name.trim().toLowerCase());

/**
 * What a site states about a venue, deterministic by its name and city: its neighbourhood, a
 * restaurant's cuisine, a hotel's star rating ("4-star" or "4 Star" in its name sets it, for tests;
 * otherwise 3 to 5). A suggested venue (ALTERNATIVES) is described as its suggestion said.
 */
export function venueFacts(name: string, city: string): { neighbourhood: string; cuisine: string; stars: number } {
  const named = /\b([1-5])[- ]?stars?\b/i.exec(name);
  const alternative = known(name);
  const seed = hash(`${name.toLowerCase()}|${city.toLowerCase()}`);
  return {
    neighbourhood: alternative?.neighbourhood ?? NEIGHBOURHOODS[seed % NEIGHBOURHOODS.length]!,
    cuisine: alternative?.cuisine || CUISINES[(seed >> 3) % CUISINES.length]!,
    stars: named ? Number(named[1]) : alternative?.stars || 3 + (hash(name.toLowerCase()) % 3),
  };
}

const CARRIERS = ['Northwind Airways', 'Aurora Air', 'Bluejay Airlines'];
const CABIN_MULTIPLIER: Record<string, number> = { economy: 100, premium_economy: 160, business: 320, first: 500 };

function prefMatches(pref: string, title: string): boolean {
  const words = pref.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3);
  const t = title.toLowerCase();
  return words.length > 0 && words.some((w) => t.includes(w));
}

function carrierCode(carrier: string): string {
  const letters = carrier.replace(/[^A-Za-z ]/g, '').trim().split(/\s+/);
  const code = letters.length >= 2 ? (letters[0]?.[0] ?? 'X') + (letters[1]?.[0] ?? 'X') : carrier.replace(/[^A-Za-z]/g, '').slice(0, 2);
  return (code || 'XX').toUpperCase().padEnd(2, 'X');
}

/**
 * Options for a search. Deterministic: the same query always yields the same
 * options and prices. `behaviour` shapes availability (Sold Out, Busy).
 */
export function generateOptions(q: SearchQuery, behaviour: Behaviour): Option[] {
  if (behaviour === 'sold-out') return [];
  switch (q.scenario) {
    case 'restaurant': {
      const seed = hash(`${q.restaurantName.toLowerCase()}|${q.city.toLowerCase()}`);
      const perPerson = (10 + (seed % 3) * 5) * 100; // guarantee per guest
      const req = toMinutes(q.time);
      const slots: Array<[number, boolean]> = behaviour === 'busy'
        ? [[req - 60, true], [req, false], [req + 30, true]]
        : [[req - 30, true], [req, true], [req + 15, true], [req + 45, true]];
      return slots
        .filter(([m]) => m >= 0 && m < 1440)
        .map(([m, available], i) => {
          const time = fromMinutes(m);
          return {
            id: time.replace(':', ''),
            available,
            title: time,
            time,
            description: RESTAURANT_AREAS[(seed + i) % RESTAURANT_AREAS.length],
            unitPrice: perPerson,
            quantity: q.partySize,
            total: perPerson * q.partySize,
          };
        });
    }
    case 'hotel': {
      const seed = hash(`${q.hotelName.toLowerCase()}|${q.city.toLowerCase()}`);
      const base = 70 + (seed % 60);
      const nights = daysBetween(q.checkIn, q.checkOut);
      const occupancy = 100 + Math.max(0, q.adults - 2) * 15;
      return HOTEL_ROOMS.map(([title, description, mult], i) => {
        const unitPrice = Math.round((base * mult * occupancy) / 10_000) * 100;
        return {
          id: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
          available: !(behaviour === 'busy' && i === 0),
          title,
          description,
          matchesPreference: prefMatches(q.roomPreference, title),
          unitPrice,
          quantity: nights,
          total: unitPrice * nights,
        };
      });
    }
    case 'flight': {
      const pref = q.departureTime ? toMinutes(q.departureTime) : 9 * 60;
      const route = hash(`${q.origin.toLowerCase()}|${q.destination.toLowerCase()}`);
      const duration = 55 + (route % 84) * 5;
      const cabin = q.cabin || 'economy';
      const slots: Array<[number, boolean]> = behaviour === 'busy'
        ? [[pref - 120, true], [pref, false], [pref + 45, true]]
        : [[pref - 180, true], [pref, true], [pref + 150, true], [pref + 330, true]];
      return slots
        .filter(([m]) => m >= 0 && m < 1440)
        .map(([m, available], i) => {
          const carrier = q.airline || CARRIERS[(route + i) % CARRIERS.length] || 'Northwind Airways';
          const flightNumber = `${carrierCode(carrier)} ${100 + (hash(`${carrier}|${route}|${m}`) % 900)}`;
          const outbound = 60 + (route % 240) + Math.round(duration * 0.4) + (hash(flightNumber) % 40);
          // A return fare: the same carrier back in the evening (a same-day return leaves the destination
          // after the outbound lands), the two legs priced as one.
          const back = q.returnDate ? Math.max(17 * 60 + i * 40, q.returnDate === q.date ? m + duration + 120 : 0) : null;
          const returnLeg = back !== null && back < 1440
            ? { flightNumber: `${carrierCode(carrier)} ${100 + (hash(`${carrier}|${route}|back|${back}`) % 900)}`, time: fromMinutes(back), arrival: fromMinutes(back + duration), arrivesNextDay: back + duration >= 1440 }
            : undefined;
          if (q.returnDate && !returnLeg) return null;
          const fare = outbound + (returnLeg ? Math.round(outbound * 0.9) : 0);
          const unitPrice = Math.round((fare * (CABIN_MULTIPLIER[cabin] ?? 100)) / 100) * 100;
          const arr = m + duration;
          return {
            id: `${flightNumber.replace(' ', '')}-${fromMinutes(m).replace(':', '')}${returnLeg ? `-R${returnLeg.time.replace(':', '')}` : ''}`,
            ...(returnLeg ? { returnLeg } : {}),
            available,
            title: flightNumber,
            time: fromMinutes(m),
            arrival: fromMinutes(arr),
            arrivesNextDay: arr >= 1440,
            carrier,
            flightNumber,
            durationMinutes: duration,
            cabin,
            unitPrice,
            quantity: q.passengers,
            total: unitPrice * q.passengers,
          };
        })
        .filter((o) => o !== null);
    }
    case 'activity': {
      const seed = hash(`${q.eventName.toLowerCase()}|${q.city.toLowerCase()}`);
      const base = 30 + (seed % 50);
      const startTime = ['19:00', '19:30', '20:00'][seed % 3] ?? '19:30';
      return SECTIONS.map(([title, description, mult], i) => {
        const unitPrice = Math.round((base * mult) / 100) * 100;
        return {
          id: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
          available: !(behaviour === 'busy' && i === 0),
          title,
          description,
          startTime,
          matchesPreference: prefMatches(q.seatType, title),
          unitPrice,
          quantity: q.tickets,
          total: unitPrice * q.tickets,
        };
      });
    }
  }
}

/** Guest-details form field names. Flights use per-passenger `p{n}_*` fields plus email/tel. */
export function passengerField(n: number, field: 'given_name' | 'family_name' | 'birth_date' | 'passport_number' | 'passport_country' | 'known_traveler_number'): string {
  return `p${n}_${field}`;
}

export function guestFieldNames(q: SearchQuery): string[] {
  if (q.scenario !== 'flight') return ['given_name', 'family_name', 'email', 'tel', 'special_requests'];
  const names = ['email', 'tel'];
  for (let n = 1; n <= q.passengers; n++) {
    for (const f of ['given_name', 'family_name', 'birth_date', 'passport_number', 'passport_country', 'known_traveler_number'] as const) {
      names.push(passengerField(n, f));
    }
  }
  return names;
}

export function guestFormValues(q: SearchQuery, g: GuestDetails | null): Record<string, string> {
  const v: Record<string, string> = {};
  if (!g) return v;
  v.email = g.email;
  v.tel = g.tel;
  v.given_name = g.givenName;
  v.family_name = g.familyName;
  v.special_requests = g.specialRequests;
  if (q.scenario === 'flight') {
    g.passengers.forEach((p, i) => {
      const n = i + 1;
      v[passengerField(n, 'given_name')] = p.givenName;
      v[passengerField(n, 'family_name')] = p.familyName;
      v[passengerField(n, 'birth_date')] = p.birthDate;
      v[passengerField(n, 'passport_number')] = p.passportNumber;
      v[passengerField(n, 'passport_country')] = p.passportCountry;
      v[passengerField(n, 'known_traveler_number')] = p.knownTravelerNumber;
    });
  }
  return v;
}

export function parseGuest(q: SearchQuery, form: URLSearchParams, today: string): { guest: GuestDetails | null; state: FormState } {
  const values: Record<string, string> = {};
  for (const name of guestFieldNames(q)) values[name] = (form.get(name) ?? '').trim();
  const errors: Record<string, string> = {};
  const email = required(values, errors, 'email', 'Email');
  if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) errors.email = 'Enter a valid email address.';
  const tel = required(values, errors, 'tel', 'Phone number');
  if (tel && !/^\+?[\d\s().-]{6,20}$/.test(tel)) errors.tel = 'Enter a valid phone number.';
  const passengers: Passenger[] = [];
  let givenName: string;
  let familyName: string;
  if (q.scenario === 'flight') {
    for (let n = 1; n <= q.passengers; n++) {
      const who = `Passenger ${n}`;
      const p: Passenger = {
        givenName: required(values, errors, passengerField(n, 'given_name'), `${who}: first name`),
        familyName: required(values, errors, passengerField(n, 'family_name'), `${who}: last name`),
        birthDate: dateField(values, errors, passengerField(n, 'birth_date'), `${who}: date of birth`),
        passportNumber: required(values, errors, passengerField(n, 'passport_number'), `${who}: passport number`).toUpperCase(),
        passportCountry: required(values, errors, passengerField(n, 'passport_country'), `${who}: passport country`).toUpperCase(),
        knownTravelerNumber: values[passengerField(n, 'known_traveler_number')] ?? '',
      };
      if (p.birthDate && !errors[passengerField(n, 'birth_date')] && p.birthDate >= today) errors[passengerField(n, 'birth_date')] = `${who}: date of birth must be in the past.`;
      if (p.passportNumber && !/^[A-Z0-9]{6,9}$/.test(p.passportNumber)) errors[passengerField(n, 'passport_number')] = `${who}: passport number must be 6–9 letters or digits.`;
      if (p.passportCountry && !COUNTRIES.some(([c]) => c === p.passportCountry)) errors[passengerField(n, 'passport_country')] = `${who}: choose the passport's issuing country.`;
      passengers.push(p);
    }
    givenName = passengers[0]?.givenName ?? '';
    familyName = passengers[0]?.familyName ?? '';
  } else {
    givenName = required(values, errors, 'given_name', 'First name');
    familyName = required(values, errors, 'family_name', 'Last name');
  }
  const state = { values, errors };
  if (Object.keys(errors).length) return { guest: null, state };
  return {
    guest: { givenName, familyName, email, tel, specialRequests: values.special_requests ?? '', passengers },
    state,
  };
}

export function countryName(code: string): string {
  return COUNTRIES.find(([c]) => c === code)?.[1] ?? code;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "Friday, 14 March 2031" */
export function longDate(iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return iso;
  return `${WEEKDAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "Mar 14, 2031" */
export function shortDateUS(iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return iso;
  return `${MONTHS[d.getUTCMonth()]?.slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "7:30 PM" */
export function time12(hhmm: string): string {
  const m = toMinutes(hhmm);
  const h = Math.floor(m / 60);
  const suffix = h >= 12 ? 'PM' : 'AM';
  return `${((h + 11) % 12) + 1}:${String(m % 60).padStart(2, '0')} ${suffix}`;
}

export function money(minor: number, currency: 'EUR' | 'USD' | 'GBP'): string {
  const symbol = currency === 'EUR' ? '€' : currency === 'GBP' ? '£' : '$';
  const major = (minor / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${symbol}${major}`;
}

export function duration(minutes: number): string {
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
