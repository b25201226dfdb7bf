import { clean } from '../lib.ts';
import type { Reader } from '../page.ts';

/** schema.org data: JSON-LD blocks and microdata items. */
export const structuredData: Reader = ({ all }) => {
  const jsonld: unknown[] = [];
  for (const s of all('script[type="application/ld+json"]')) {
    try {
      jsonld.push(JSON.parse(s.textContent ?? ''));
    } catch {
      // A malformed block says nothing.
    }
  }
  const microdata: Array<{ type: string; props: Record<string, string> }> = [];
  for (const scope of all('[itemscope][itemtype]').slice(0, 100)) {
    const props: Record<string, string> = {};
    for (const p of Array.from(scope.querySelectorAll('[itemprop]'))) {
      if (p.parentElement?.closest('[itemscope]') !== scope && p.closest('[itemscope]') !== scope) continue;
      const name = p.getAttribute('itemprop') ?? '';
      const value = p.getAttribute('content') ?? p.getAttribute('datetime') ?? (p.tagName === 'META' ? '' : clean(p.textContent));
      if (name && !(name in props)) props[name] = value;
    }
    microdata.push({ type: scope.getAttribute('itemtype') ?? '', props });
  }
  return { jsonld, microdata };
};
