import type { Booking, FormState, ProviderId, Scenario, SearchRecord } from './types.ts';

/**
 * URL templates of a provider. `:sid` is a search id, `:bid` a booking id.
 * GET home -> POST search -> GET results -> POST select -> GET/POST details ->
 * GET/POST review -> GET/POST payment -> GET confirmation.
 */
export interface ProviderPaths {
  home: string;
  search: string;
  results: string;
  select: string;
  signIn: string;
  verify: string;
  details: string;
  review: string;
  payment: string;
  confirmation: string;
}

export interface HoldInfo {
  expiresAt: Date;
  secondsLeft: number;
  expired: boolean;
}

export interface ProviderViews {
  home(form: FormState): string;
  results(s: SearchRecord, error?: string): string;
  noAvailability(s: SearchRecord): string;
  details(b: Booking, form: FormState): string;
  review(b: Booking, hold: HoldInfo): string;
  /** Payment step; when `hold.expired` it must say so and offer no way to pay. */
  payment(b: Booking, hold: HoldInfo, error?: string): string;
  confirmation(b: Booking): string;
  signIn(s: SearchRecord, error?: string): string;
  captcha(s: SearchRecord, error?: string): string;
  broken(s: SearchRecord): string;
  /** Missing (restaurants, hotels): similar venues suggested instead of the one asked for. */
  alternatives?(s: SearchRecord): string;
  error(status: number, title: string, message: string, retryHref?: string): string;
}

export interface ProviderDef {
  id: ProviderId;
  scenario: Scenario;
  name: string;
  firstChoice: boolean;
  cookieName: string;
  /** Name of the form field that carries the chosen option id on the availability page. */
  selectField: string;
  /** Name of the card-security-code field on the payment page. */
  cardCodeField: string;
  /** Card on file, exactly as the payment page shows it. */
  cardOnFile: string;
  currency: 'EUR' | 'USD' | 'GBP';
  paths: ProviderPaths;
  confirmationCode(): string;
  views: ProviderViews;
}
