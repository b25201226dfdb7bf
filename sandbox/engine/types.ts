export type ProviderId = 'tablebook' | 'dinenow' | 'staysearch' | 'roomly' | 'skyfare' | 'jetdeck' | 'tixhub' | 'eventgo';
export type Scenario = 'restaurant' | 'hotel' | 'flight' | 'activity';

export type Behaviour = 'normal' | 'sold-out' | 'busy' | 'members' | 'captcha' | 'outage' | 'flaky' | 'walk-in' | 'broken' | 'sister' | 'missing';

export interface RestaurantSearch {
  scenario: 'restaurant';
  restaurantName: string;
  city: string;
  date: string; // YYYY-MM-DD
  time: string; // HH:MM
  partySize: number;
}

export interface HotelSearch {
  scenario: 'hotel';
  hotelName: string;
  city: string;
  checkIn: string;
  checkOut: string;
  adults: number;
  roomPreference: string;
}

export interface FlightSearch {
  scenario: 'flight';
  origin: string;
  destination: string;
  date: string;
  passengers: number;
  airline: string;
  departureTime: string; // HH:MM, '' when not given
  cabin: string; // '' | economy | premium_economy | business | first
  returnDate: string; // YYYY-MM-DD of a return fare, '' for one way
}

export interface ActivitySearch {
  scenario: 'activity';
  eventName: string;
  city: string;
  eventDate: string;
  tickets: number;
  seatType: string;
}

export type SearchQuery = RestaurantSearch | HotelSearch | FlightSearch | ActivitySearch;

/** One bookable (or visibly unavailable) option on an availability page. */
export interface Option {
  /** Stable id, submitted by the availability form. */
  id: string;
  available: boolean;
  /** Human title, e.g. "19:30", "Deluxe King Room", "NW 214", "Premium seating". */
  title: string;
  /** Restaurant slot time or flight departure time (HH:MM). */
  time?: string;
  /** Flight arrival time (HH:MM) and whether it lands the next day. */
  arrival?: string;
  arrivesNextDay?: boolean;
  carrier?: string;
  flightNumber?: string;
  durationMinutes?: number;
  /** A return fare's way back (its price is in the option's). */
  returnLeg?: { flightNumber: string; time: string; arrival: string; arrivesNextDay: boolean };
  cabin?: string;
  /** Restaurant seating area, hotel room description, activity section description. */
  description?: string;
  /** Activity start time. */
  startTime?: string;
  matchesPreference?: boolean;
  /** Price per unit (person / night / passenger / ticket), minor units. */
  unitPrice: number;
  /** Number of units (party size, nights, passengers, tickets). */
  quantity: number;
  /** Total, minor units. */
  total: number;
}

export interface Passenger {
  givenName: string;
  familyName: string;
  birthDate: string;
  passportNumber: string;
  passportCountry: string;
  knownTravelerNumber: string;
}

export interface GuestDetails {
  givenName: string;
  familyName: string;
  email: string;
  tel: string;
  specialRequests: string;
  /** Flights only: one entry per passenger; passenger 1 is the lead (givenName/familyName mirror it). */
  passengers: Passenger[];
}

export interface SearchRecord {
  id: string;
  query: SearchQuery;
  behaviour: Behaviour;
  options: Option[];
  createdAt: number;
}

export interface Booking {
  id: string;
  search: SearchRecord;
  option: Option;
  guest: GuestDetails | null;
  holdExpiresAt: number;
  reviewed: boolean;
  confirmation: { code: string; paidWithCard: boolean; at: Date } | null;
}

export interface Session {
  id: string;
  searches: Map<string, SearchRecord>;
  bookings: Map<string, Booking>;
  /** Set once this session hit an `Outage` search on a first-choice provider. */
  outage: boolean;
}

/** Values shown back in a form (raw strings as typed) plus per-field errors. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}
