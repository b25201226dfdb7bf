import type { Page, Response } from 'playwright-core';

// Speculation rules a document names in its Speculation-Rules response header. The browser fetches
// the rule set through the page's network (where the network layer sees it), then prefetches and
// prerenders what it names from its own process, where nothing does. So while automation is in
// control the rule set itself is not fetched. The header arrives with the document's response,
// which Playwright reports before the document can ask for the rule set (same DevTools session, in
// order); the rule sets written in the page are removed by UNSEEN_SCRIPT.

const MAX_KEPT = 200;

export class HeaderRuleSets {
  readonly #urls = new Set<string>();
  readonly #guarded: (page: Page) => boolean;

  /** `guarded(page)`: whether automation is in control of the page (the person's tab fetches what it likes). */
  constructor(guarded: (page: Page) => boolean) {
    this.#guarded = guarded;
  }

  /** Remembers the rule sets a response's Speculation-Rules header names. */
  note(response: Response): void {
    const header = response.headers()['speculation-rules'];
    if (!header) return;
    let page: Page;
    try {
      page = response.frame().page();
    } catch {
      // A worker's response: workers do not apply speculation rules.
      return;
    }
    if (!this.#guarded(page)) return;
    // A structured-header list of strings: "/rules.json", "https://…/other.json".
    for (const [, url] of header.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
      try {
        this.#urls.add(new URL(url!, response.url()).href);
      } catch {
        // Not a URL: the browser ignores it too.
      }
      if (this.#urls.size > MAX_KEPT) this.#urls.delete(this.#urls.values().next().value!);
    }
  }

  named(url: string): boolean {
    return this.#urls.has(url);
  }
}
