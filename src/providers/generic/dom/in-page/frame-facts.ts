import { cardChoiceOf } from '../../../../driver/card-fields.ts';
import { clean, nameOf, selectorOf, shown } from './lib.ts';

// An entry of the in-page bundle (scripts/build-page-scripts.ts), asked of every frame.

/**
 * What a frame shows of a card-code field, a CAPTCHA, its text, and the buttons it shows (payment
 * partners, CAPTCHAs and consent platforms live in iframes): each button by its selector in the frame.
 */
export default function frameFacts(): FrameFacts {
  const fieldEls = Array.from(document.querySelectorAll('input,select,textarea'));
  const buttons = Array.from(document.querySelectorAll('button,[role="button"],a[href],input[type="button"],input[type="submit"]')).filter(shown).slice(0, 20);
  return {
    card: fieldEls.some((el) => cardChoiceOf(el) !== null),
    captcha: document.querySelector('.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey]') !== null,
    text: clean(document.body ? document.body.innerText : '').slice(0, 2000),
    buttons: buttons.map((b) => ({ sel: selectorOf(b), text: nameOf(b) || clean(b.textContent) })),
    fields: fieldEls.filter((el) => shown(el) && !['hidden', 'submit', 'button', 'checkbox', 'radio'].includes((el.getAttribute('type') ?? '').toLowerCase())).length,
  };
}

export interface FrameFacts {
  card: boolean;
  captcha: boolean;
  text: string;
  buttons: Array<{ sel: string; text: string }>;
  /** Fields shown to fill (a consent banner has none). */
  fields: number;
}
