/**
 * The few parse5 tree operations the variants need: walk, attributes, text,
 * and moving nodes, on parse5's default tree.
 */
import { defaultTreeAdapter as tree, type DefaultTreeAdapterMap } from 'parse5';

export type Node = DefaultTreeAdapterMap['node'];
export type Element = DefaultTreeAdapterMap['element'];
export type ParentNode = DefaultTreeAdapterMap['parentNode'];
export type TextNode = DefaultTreeAdapterMap['textNode'];

export const isElement = (n: Node): n is Element => 'tagName' in n;
export const isText = (n: Node): n is TextNode => n.nodeName === '#text';

export function childrenOf(n: Node): Node[] {
  return 'childNodes' in n ? n.childNodes : [];
}

/** Every element under `root` (document order), with the content of <template> too. */
export function elements(root: Node): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    for (const c of childrenOf(n)) {
      if (!isElement(c)) continue;
      out.push(c);
      visit(c);
      if (c.tagName === 'template' && 'content' in c) visit(c.content);
    }
  };
  visit(root);
  return out;
}

export function attr(e: Element, name: string): string | undefined {
  return e.attrs.find((a) => a.name === name)?.value;
}

export function setAttr(e: Element, name: string, value: string): void {
  const a = e.attrs.find((x) => x.name === name);
  if (a) a.value = value;
  else e.attrs.push({ name, value });
}

export function ancestors(e: Node): Element[] {
  const out: Element[] = [];
  let p = 'parentNode' in e ? e.parentNode : null;
  for (; p && isElement(p); p = p.parentNode) out.push(p);
  return out;
}

/** The text of a <script> or <style> (one text node in parse5's tree). */
export function rawText(e: Element): string {
  return e.childNodes.filter(isText).map((t) => t.value).join('');
}

export function setRawText(e: Element, text: string): void {
  e.childNodes = [];
  tree.insertText(e, text);
}

/** Puts `e` inside a new element `tag` where `e` stood. */
export function wrap(e: Element, tag: string, attrs: Array<{ name: string; value: string }>): Element {
  const parent = e.parentNode!;
  const wrapper = tree.createElement(tag, e.namespaceURI, attrs);
  const i = parent.childNodes.indexOf(e);
  parent.childNodes[i] = wrapper;
  wrapper.parentNode = parent;
  wrapper.childNodes.push(e);
  e.parentNode = wrapper;
  return wrapper;
}

/** An inline script the page runs (not JSON-LD or other data). */
export function isRunScript(e: Element): boolean {
  if (e.tagName !== 'script' || attr(e, 'src') !== undefined) return false;
  const type = (attr(e, 'type') ?? '').trim().toLowerCase();
  return type === '' || type === 'text/javascript' || type === 'module' || type === 'application/javascript';
}
