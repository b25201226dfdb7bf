// How the guard reports what it did. Every refusal becomes an `action_denied` audit event naming the
// layer and the field; values never appear (the guard never reads them).
export type GuardLayer = 'driver' | 'page' | 'network';

export const LAYER_NAMES: Record<GuardLayer, string> = {
  driver: 'driver layer',
  page: 'in-page layer',
  network: 'network layer',
};

/**
 * A URL as the guard's messages name it: origin and path, never the query, and no digit (each one
 * '#'). The page chooses all of it, host and port included: a page that had the person's code (typed
 * while they were in control) could put it anywhere in a URL it requests, and an audit event must
 * never carry a card code. A code is digits; the names an operator reads a refusal by mostly are not.
 */
export function describeUrl(url: string): string {
  return describe(url, (u) => `${u.origin}${u.pathname}`);
}

/** A frame's origin as the guard's messages name it: digits masked, as in describeUrl. */
export function describeOrigin(url: string): string {
  return describe(url, (u) => u.origin);
}

function describe(url: string, part: (u: URL) => string): string {
  try {
    const u = new URL(url);
    // about:blank, about:srcdoc; a data: or blob: URL is named by its scheme alone (a blob: URL has
    // its creator's origin, and its "path" is that origin again with the blob's id).
    if (u.origin === 'null' || u.protocol === 'blob:') return u.protocol === 'about:' ? `about:${u.pathname.slice(0, 20)}` : u.protocol;
    return part(u).replace(/[0-9]/g, '#');
  } catch {
    return 'an unparseable URL';
  }
}

export interface GuardEvents {
  denied(layer: GuardLayer, message: string): void;
  allowed(message: string): void;
}

/** For code that runs a page without a job (tests, tools): remembers what the guard said. */
export class GuardLog implements GuardEvents {
  readonly entries: Array<{ kind: 'denied' | 'allowed'; layer?: GuardLayer; message: string }> = [];
  denied(layer: GuardLayer, message: string): void {
    this.entries.push({ kind: 'denied', layer, message });
  }
  allowed(message: string): void {
    this.entries.push({ kind: 'allowed', message });
  }
  deniedBy(layer: GuardLayer): string[] {
    return this.entries.filter((e) => e.kind === 'denied' && e.layer === layer).map((e) => e.message);
  }
}
