// The service's two coarse scopes; every granted scope is a subset of these.
export const SCOPES = ['book', 'read'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope lets an app do, in the words the consent page shows. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  book: 'Start bookings for you (restaurants, hotels, flights, activities). You still confirm every payment yourself.',
  read: 'See the status and decision log of bookings it started for you.',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Splits a scope string on spaces (or '+', which some clients send literally), dropping repeats. */
export function splitScope(raw: string): string[] {
  return [...new Set(raw.split(/[ +]+/).filter(Boolean))];
}

/**
 * A scope parameter read strictly (RFC 6749 §3.3: scope-token *( SP scope-token )), for the token
 * endpoint: every token must be one of SCOPES, separated by exactly one space, or the whole value
 * is refused (null). Nothing else (commas, braces, quotes, '+', tabs, runs of spaces, a space at
 * either end) separates, so the value can never mean more than it says.
 */
export function parseScopeParameter(raw: string): Scope[] | null {
  const tokens = raw.split(' ');
  if (!tokens.every(isScope)) return null;
  return [...new Set(tokens)] as Scope[];
}

/** The canonical form: known scopes only, in the order of SCOPES, space-separated. */
export function formatScope(scopes: Iterable<string>): string {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s)).join(' ');
}

export function scopeList(scope: string): Scope[] {
  return splitScope(scope).filter(isScope);
}

/** True when every scope of `wanted` is in `granted`. */
export function scopeCovers(granted: string, wanted: string[]): boolean {
  const have = new Set(splitScope(granted));
  return wanted.every((s) => have.has(s));
}
