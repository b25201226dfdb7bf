/**
 * Small pieces corpus sites share: a page shell, the three outcome walls in a
 * few real-world styles (each site picks its own), money and dates. Markup of
 * the booking steps stays in each site.
 */
import { htmlRes, type Res } from '../engine/http.ts';
import { document, html, raw, type SafeHtml } from '../engine/html.ts';

export { html, raw, attr, esc, type SafeHtml } from '../engine/html.ts';
export { htmlRes, jsonRes, redirect, type Req, type Res } from '../engine/http.ts';
export { money, longDate, shortDateUS, time12, duration, countryName, COUNTRIES, CABIN_LABELS } from '../engine/inventory.ts';

export function page(opts: { title: string; css: string; body: SafeHtml; head?: SafeHtml; lang?: string }): string {
  return document({ title: opts.title, lang: opts.lang, head: html`<style>${raw(opts.css)}</style>${opts.head ?? ''}`, body: opts.body });
}

export function ok(body: string, headers: Record<string, string | string[]> = {}): Res {
  return htmlRes(200, body, headers);
}

/** JSON-LD script tag (the value is serialised, `<` escaped so it cannot close the script). */
export function jsonLd(value: unknown): SafeHtml {
  return raw(`<script type="application/ld+json">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`);
}

export type CaptchaKind = 'recaptcha' | 'hcaptcha' | 'turnstile';

const CAPTCHA_TITLES: Record<CaptchaKind, string> = {
  recaptcha: 'reCAPTCHA',
  hcaptcha: 'Widget containing checkbox for hCaptcha security challenge',
  turnstile: 'Widget containing a Cloudflare security challenge',
};

/** A challenge widget as the vendors embed it: an iframe whose title names the vendor. It can never be passed. */
export function captchaWidget(kind: CaptchaKind): SafeHtml {
  const cls = kind === 'recaptcha' ? 'g-recaptcha' : kind === 'hcaptcha' ? 'h-captcha' : 'cf-turnstile';
  return html`<div class="${cls}"><iframe title="${CAPTCHA_TITLES[kind]}" src="/__challenge/${kind}" width="304" height="78" style="border:0"></iframe></div>`;
}

/** The challenge frame's own document (served by the site under /__challenge/<kind>). */
export function captchaFrame(kind: string): Res | null {
  if (!(kind in CAPTCHA_TITLES)) return null;
  const label = kind === 'turnstile' ? 'Verify you are human' : 'I am human';
  return htmlRes(200, document({
    title: CAPTCHA_TITLES[kind as CaptchaKind],
    body: html`<div style="font:14px sans-serif;border:1px solid #ccc;padding:12px"><label><input type="checkbox" id="challenge"> ${label}</label><p id="challenge-msg" role="alert" hidden>Verification failed. Please try again.</p></div><script>document.getElementById('challenge').addEventListener('change',function(){this.checked=false;document.getElementById('challenge-msg').hidden=false;});</script>`,
  }));
}
