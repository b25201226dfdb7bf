import type { DriverPage } from './page.ts';

// What a provider driver is: the knowledge of one website's pages, and nothing else. Decisions
// (which option, retries, fallback, when to stop) are the executor's; the page API is the payment
// guard's (a driver cannot fill a card-code field, and pressing Pay is refused: that is the pause).

/**
 * What each scenario searches for, by the scenario's name: its module in src/scenarios/ adds its own
 * entry (TypeScript declaration merging), so the contract names no scenario and a new scenario is
 * that one module (and a line in SCENARIO_SPECS). Each entry is the booking asked for, in the
 * executor's words (the REST params, normalised), tagged with its scenario.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the scenario modules
export interface SearchRequests {}

/** What a job books: restaurant, hotel, flight, activity (src/scenarios/, SCENARIOS there in order). */
export type Scenario = keyof SearchRequests;

/** The booking asked for, in the executor's words: one scenario's entry of SearchRequests. */
export type SearchRequest = SearchRequests[Scenario];

/** One person the booking is for. */
export interface Person {
  givenName: string;
  familyName: string;
  email: string;
  phone: string;
  birthDate?: string;
  passportNumber?: string;
  passportCountry?: string;
  knownTravelerNumber?: string;
}

/** The lead traveller (the booker, the contact), and on a flight for several the other passengers in order. */
export interface Traveller extends Person {
  additionalTravellers?: Person[];
}

/** Everyone travelling, the lead first. */
export function travellersOf(t: Traveller): Person[] {
  return [t, ...(t.additionalTravellers ?? [])];
}

/** One option on an availability page, as the site shows it. */
export interface Offer {
  /** What the driver needs to choose it again (a slot id, a room type…). */
  key: string;
  available: boolean;
  /** The option's title as shown ("19:30", "Deluxe King Room", "NW 214", "Premium seating"). */
  label: string;
  /** Restaurant slot or flight departure, HH:MM. */
  time?: string;
  flightNumber?: string;
  description?: string;
  /** Price per unit (person, night, ticket, passenger) in major units, when the page shows it. */
  unitPrice?: number;
  total?: number;
  /** The price as the page writes it ("€30.00"). */
  priceText?: string;
  /** Hotels: the property's star rating, where the site shows one. */
  stars?: number;
  /** A suggested venue (Availability `venues`): its cuisine and neighbourhood as the site states them. */
  cuisine?: string;
  neighborhood?: string;
}

export type Availability =
  | { kind: 'offers'; offers: Offer[] }
  /** The venue asked for is not on the site, which suggests these instead (each chosen with chooseVenue). */
  | { kind: 'venues'; venues: Offer[]; message: string }
  | { kind: 'none'; message: string }
  | { kind: 'login_wall'; message: string }
  | { kind: 'captcha'; message: string }
  | { kind: 'unexpected'; message: string };

/** Exactly what the provider holds, read from its review and payment pages. */
export interface Held {
  venue: string;
  when: string;
  /** Party size, rooms and guests, passengers, tickets: as the site says it. */
  quantity: string;
  /** Seating area, room, flight, section. */
  item?: string;
  price: string;
  cardOnFile?: string;
  holdExpiresAt?: Date;
}

export interface ReviewPage {
  held: Held;
  /** The site books without a card step ("pay at the venue"). */
  noCardStep: boolean;
  /**
   * The site took a request, not a booking ("Request for reservation sent; the hotel confirms by
   * email"): its own words. Nothing is confirmed and nothing is paid; there is no later step.
   */
  requestSent?: string;
}

export interface PaymentPage {
  price?: string;
  cardOnFile?: string;
  holdExpiresAt?: Date;
  /** Selector of the card-code field (focused for the person at the pause; never filled). */
  cardField: string;
  /**
   * The page places a binding order with no card step (bank transfer, invoice, "Place binding
   * order"): the control's words. Pressing it commits the person to pay, so it is theirs to press.
   */
  bindingOrder?: string;
}

export interface Driver {
  /** The provider's id: a built-in one, or one registered with `concierge providers add`. */
  id: string;
  name: string;
  scenario: Scenario;
  /**
   * Reads pages by their accessible names (Element.computedName): its tab keeps Chromium's
   * accessibility tree, which costs a scripted driver memory for nothing.
   */
  readsNames?: boolean;
  /** Opens the provider's start URL, fills the search and submits it. */
  search(page: DriverPage, startUrl: string, request: SearchRequest): Promise<void>;
  availability(page: DriverPage): Promise<Availability>;
  choose(page: DriverPage, offer: Offer): Promise<void>;
  /** Opens a venue the site suggested (Availability `venues`); its availability is read next. */
  chooseVenue?(page: DriverPage, venue: Offer): Promise<void>;
  guestDetails(page: DriverPage, traveller: Traveller, request: SearchRequest): Promise<void>;
  /** Reads the review page; null when the page shown is not the review page. */
  review(page: DriverPage): Promise<ReviewPage | null>;
  /** Presses the review page's button: on to payment, or "confirm" when no card is needed. */
  confirmReview(page: DriverPage): Promise<void>;
  /** Reads the payment page; null when the page shown is not the payment page. */
  payment(page: DriverPage): Promise<PaymentPage | null>;
  /** Presses Pay. The payment guard refuses it (CardStepReached): that is the pause. */
  pay(page: DriverPage): Promise<void>;
  /** The confirmation code when the page shown is the booking confirmation, else null. */
  confirmation(page: DriverPage): Promise<string | null>;
  /** Validation messages the page shows after a submission (guest details rejected…). */
  formErrors(page: DriverPage): Promise<string[]>;
}
