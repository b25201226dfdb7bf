import type { Availability, Offer } from '../../types.ts';
import type { Snapshot } from './snapshot.ts';
import { either, NONE_PHRASES } from './words.ts';

// What an availability page is, in the order a careful person would tell: a CAPTCHA (its frames,
// its words), a sign-in wall (a password field and sign-in words before any offer), the offers, an
// explicit "no availability" (an alert or status, or the page's own words), else not understood.

const CAPTCHA_FRAME = /recaptcha|hcaptcha|challenges\.cloudflare\.com|turnstile|captcha/i;
const CAPTCHA_WORDS = /\b(verify (that )?you are (a )?human|are you a robot|i'?m not a robot|captcha|security check|prove you('| a)re human|unusual (activity|traffic))\b/i;
const LOGIN_WORDS = /\b(sign ?in|log ?in|members? only|create an account|your account)\b/i;
export const NONE_WORDS = either(/\b(no (availability|tables?|rooms?|flights?|tickets?|seats?|results?|times?|slots?|options?)( (are|is))?( (available|left|found))?|not available|nothing (is )?available|sold out|fully booked|no longer available|there (is|are) no (availability|seats|tables|rooms|flights|tickets))\b/, NONE_PHRASES);

export interface FrameFacts {
  url: string;
  main: boolean;
  result: { card: boolean; captcha: boolean; text: string };
}

export function captchaIn(s: Snapshot, frames: FrameFacts[]): string | null {
  const frame = s.frames.find((f) => CAPTCHA_FRAME.test(f.src) || CAPTCHA_FRAME.test(f.title));
  if (frame) return `a CAPTCHA frame (${frame.title || hostOf(frame.src)})`;
  if (frames.some((f) => f.result.captcha)) return 'a CAPTCHA widget';
  const heading = s.headings.find((h) => CAPTCHA_WORDS.test(h));
  if (heading) return heading;
  const m = CAPTCHA_WORDS.exec(s.text.slice(0, 3000));
  return m ? m[0] : null;
}

export function loginWallIn(s: Snapshot): string | null {
  if (!s.passwordField) return null;
  return s.headings.find((h) => LOGIN_WORDS.test(h)) ?? (LOGIN_WORDS.exec(s.text.slice(0, 3000))?.[0] ?? null);
}

/**
 * The page's words that nothing is available. `venue`: the name asked for, whose own words never
 * count ("Results for “Sold Out Sessions”" says nothing about availability).
 */
export function noneMessage(s: Snapshot, venue?: string): string | null {
  const name = venue?.trim() ? new RegExp(venue.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi') : null;
  const says = (t: string) => NONE_WORDS.test(name ? t.replace(name, ' ') : t);
  const alert = s.alerts.find(says);
  if (alert) return alert;
  const heading = s.headings.find(says);
  if (heading) return heading;
  const text = name ? s.text.replace(name, (m) => ' '.repeat(m.length)) : s.text;
  const m = NONE_WORDS.exec(text);
  if (!m) return null;
  // The sentence around the words, as the page says it.
  const start = Math.max(0, s.text.lastIndexOf('.', m.index) + 1);
  const end = s.text.indexOf('.', m.index + m[0].length);
  return s.text.slice(start, end < 0 ? m.index + 160 : end + 1).trim().slice(0, 200);
}

export function classify(s: Snapshot, frames: FrameFacts[], offers: Offer[], venue?: string): Availability {
  const captcha = captchaIn(s, frames);
  if (captcha) return { kind: 'captcha', message: captcha };
  const login = loginWallIn(s);
  // A sign-in form in the page's body, titled as one, stands before whatever else it shows.
  if (login && (s.headings.some((h) => LOGIN_WORDS.test(h)) || !offers.some((o) => o.available))) return { kind: 'login_wall', message: login };
  if (!offers.some((o) => o.available)) {
    const none = noneMessage(s, venue);
    if (none) return { kind: 'none', message: none };
  }
  if (offers.length) return { kind: 'offers', offers };
  return { kind: 'unexpected', message: '' };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an iframe';
  }
}
