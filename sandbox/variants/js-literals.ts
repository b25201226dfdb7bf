/**
 * The string literals of an inline script, found by a small tokenizer (comments,
 * regular expression literals and template literals are stepped over as such),
 * so that a variant rewrites names and words only inside strings and the
 * script's code keeps working.
 */

export interface Literal {
  /** The literal's source text between its quotes (escapes as written). */
  text: string;
  quote: string;
  /** The code just before the opening quote, trailing spaces removed. */
  before: string;
  /** The first character after the closing quote that is not a space. */
  after: string;
}

// After these a `/` starts a regular expression, not a division.
const REGEX_AFTER = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn|\btypeof|\bcase|\bdo|\belse|\bin|\bof|\bvoid)$/;

/** Rewrites each string literal with `edit` (undefined: unchanged). */
export function mapLiterals(js: string, edit: (l: Literal) => string | undefined): string {
  let out = '';
  let i = 0;
  let last = 0;
  while (i < js.length) {
    const c = js[i]!;
    const two = js.slice(i, i + 2);
    if (two === '//') {
      const end = js.indexOf('\n', i);
      i = end < 0 ? js.length : end;
      continue;
    }
    if (two === '/*') {
      const end = js.indexOf('*/', i + 2);
      i = end < 0 ? js.length : end + 2;
      continue;
    }
    if (c === '/' && REGEX_AFTER.test(js.slice(Math.max(0, i - 8), i).trimEnd())) {
      i = skipRegex(js, i);
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < js.length && js[j] !== c) j += js[j] === '\\' ? 2 : 1;
      const text = js.slice(i + 1, j);
      const after = /\S/.exec(js.slice(j + 1))?.[0] ?? '';
      const replaced = edit({ text, quote: c, before: js.slice(Math.max(0, i - 60), i).trimEnd(), after });
      if (replaced !== undefined && replaced !== text) {
        out += js.slice(last, i + 1) + replaced;
        last = j;
      }
      i = j + 1;
      continue;
    }
    i++;
  }
  return out + js.slice(last);
}

function skipRegex(js: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < js.length) {
    const c = js[i]!;
    if (c === '\\') i += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      else if (c === '\n') return start + 1; // not a regular expression after all
      i++;
    }
  }
  i++;
  while (i < js.length && /[a-z]/i.test(js[i]!)) i++;
  return i;
}

/** A literal as HTML or attribute text, escaped so that it stays one literal in `quote`. */
export function forLiteral(text: string, quote: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return quote === '`' ? escaped.replace(/`/g, '&#96;').replace(/\$\{/g, '&#36;{') : escaped;
}
