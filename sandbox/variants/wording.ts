/**
 * Wording replaced: the text of labels, buttons, legends and headings, and
 * placeholder and aria-label attributes, by an English synonym or by another
 * language (phrases.ts), with <html lang> set to match. In scripts, only the same
 * places inside HTML fragments held in string literals (`>Text<`,
 * `aria-label="…"`): that is how a page that renders in the browser (mesa)
 * varies. Values, names and option texts are never touched.
 */
import { forLiteral, mapLiterals } from './js-literals.ts';
import { phraseIn, type Language } from './phrases.ts';
import { childrenOf, elements, isElement, isRunScript, isText, rawText, setAttr, setRawText, type Element, type Node } from './tree.ts';

const WORDED = new Set(['label', 'button', 'legend', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const WORDED_ATTRS = ['placeholder', 'aria-label'];
const UNTOUCHED = new Set(['select', 'option', 'script', 'style', 'textarea', 'template']);

function replaceText(text: string, language: Language): string | undefined {
  const to = phraseIn(text, language);
  if (to === undefined) return undefined;
  const lead = /^\s*/.exec(text)![0];
  const trail = /\s*$/.exec(text)![0];
  return lead + to + trail;
}

function textsIn(e: Element, language: Language): void {
  for (const c of childrenOf(e)) {
    if (isText(c)) c.value = replaceText(c.value, language) ?? c.value;
    else if (isElement(c) && !UNTOUCHED.has(c.tagName)) textsIn(c, language);
  }
}

export function replaceWording(doc: Node, language: Language): void {
  const all = elements(doc);
  for (const e of all) {
    if (WORDED.has(e.tagName)) textsIn(e, language);
    for (const a of e.attrs) if (WORDED_ATTRS.includes(a.name)) a.value = phraseIn(a.value, language) ?? a.value;
    if (e.tagName === 'html' && language !== 'en') setAttr(e, 'lang', language);
    if (isRunScript(e)) setRawText(e, mapLiterals(rawText(e), (l) => {
      if (!l.text.includes('<') && !/(?:aria-label|placeholder)=/.test(l.text)) return undefined;
      return l.text
        .replace(/>([^<>'"]+)</g, (all, text: string) => {
          const to = replaceText(text, language);
          return to === undefined ? all : `>${forLiteral(to, l.quote)}<`;
        })
        .replace(/\b(aria-label|placeholder)="([^"]*)"/g, (all, name: string, text: string) => {
          const to = phraseIn(text, language);
          return to === undefined ? all : `${name}="${forLiteral(to, l.quote)}"`;
        });
    }));
  }
}
