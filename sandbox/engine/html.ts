/**
 * Tiny HTML templating: `html` is a tagged template that escapes every
 * interpolated value unless it is already `SafeHtml` (the result of another
 * `html` call or of `raw`). Arrays are rendered item by item; null, undefined
 * and false render as nothing.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export function raw(text: string): SafeHtml {
  return new SafeHtml(text);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return esc(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return new SafeHtml(out);
}

/** Attribute helper: renders ` name="value"` or nothing when value is empty/false. */
export function attr(name: string, value: string | number | boolean | undefined | null): SafeHtml {
  if (value === undefined || value === null || value === false || value === '') return raw('');
  if (value === true) return raw(` ${name}`);
  return raw(` ${name}="${esc(String(value))}"`);
}

export function document(opts: { title: string; lang?: string; head?: SafeHtml; body: SafeHtml; bodyAttrs?: SafeHtml }): string {
  return (
    '<!doctype html>\n' +
    html`<html lang="${opts.lang ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${opts.title}</title>${opts.head ?? ''}</head><body${opts.bodyAttrs ?? ''}>${opts.body}</body></html>`.value
  );
}
