import { cardChoiceOf } from '../../../../driver/card-fields.ts';
import { clean } from './lib.ts';

// An entry of the in-page bundle (scripts/build-page-scripts.ts), asked of every frame.

/** What a frame shows of a card-code field, a CAPTCHA, and its text (payment partners and CAPTCHAs live in iframes). */
export default function frameFacts(): { card: boolean; captcha: boolean; text: string } {
  const fieldEls = Array.from(document.querySelectorAll('input,select,textarea'));
  return {
    card: fieldEls.some((el) => cardChoiceOf(el) !== null),
    captcha: document.querySelector('.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey]') !== null,
    text: clean(document.body ? document.body.innerText : '').slice(0, 2000),
  };
}
