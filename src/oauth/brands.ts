import { mixedScripts } from '../security/scripts.ts';
import { LOOKALIKES } from './lookalikes.ts';
import { isLoopbackUri } from './redirect-uris.ts';

// The brand check on dynamic client registration. A client may not call itself after the service
// or a large technology company unless every redirect URI is on that brand's verified domains:
// otherwise "Claude" or "G00gle Calendar" on a consent page would borrow a trust it has not earned.
// Names are compared by their "skeleton": case, look-alike letters (lookalikes.ts: Cyrillic,
// Greek, Armenian, leetspeak…), zero-width characters and separators ("G o o g l e", "Mi-cro_soft")
// do not change it.

export interface ProtectedBrand {
  /** As people write it. */
  name: string;
  /** Hosts (and their subdomains, over https only) a client using the name may redirect to. */
  verifiedDomains: string[];
  /**
   * The brand ships native apps that receive codes on a loopback redirect URI (VS Code, Claude
   * Code, Gemini CLI), which a client using the name may also use: a code sent there stays on the
   * person's own machine, so a remote impersonator gains nothing from it. The service's own name
   * always has it: native clients name themselves after the server they connect to ("Claude Code
   * (concierge)" after `claude mcp add … concierge …`).
   */
  loopback: boolean;
}

/** The service's own name: always protected (see protectedBrands). */
export const SERVICE_BRAND = 'Concierge';

/** The built-in list; PROTECTED_BRANDS replaces it, except the service's own name (see protectedBrands). */
export const DEFAULT_BRANDS: ProtectedBrand[] = [
  { name: 'Concierge', verifiedDomains: [], loopback: true },
  { name: 'Anthropic', verifiedDomains: ['claude.ai', 'claude.com', 'anthropic.com'], loopback: true },
  { name: 'Claude', verifiedDomains: ['claude.ai', 'claude.com', 'anthropic.com'], loopback: true },
  { name: 'OpenAI', verifiedDomains: ['chatgpt.com', 'openai.com'], loopback: false },
  { name: 'ChatGPT', verifiedDomains: ['chatgpt.com', 'openai.com'], loopback: false },
  { name: 'Google', verifiedDomains: ['google.com'], loopback: true },
  { name: 'Gemini', verifiedDomains: ['google.com'], loopback: true },
  { name: 'Microsoft', verifiedDomains: ['vscode.dev', 'microsoft.com'], loopback: true },
  { name: 'VS Code', verifiedDomains: ['vscode.dev', 'microsoft.com'], loopback: true },
  { name: 'Visual Studio', verifiedDomains: ['vscode.dev', 'microsoft.com'], loopback: true },
  { name: 'Copilot', verifiedDomains: ['vscode.dev', 'microsoft.com', 'github.com'], loopback: true },
  { name: 'GitHub', verifiedDomains: ['github.com'], loopback: false },
  { name: 'Apple', verifiedDomains: ['apple.com'], loopback: false },
  { name: 'Amazon', verifiedDomains: ['amazon.com'], loopback: false },
  { name: 'AWS', verifiedDomains: ['amazon.com', 'aws.amazon.com'], loopback: false },
  { name: 'Meta', verifiedDomains: ['meta.com', 'facebook.com'], loopback: false },
  { name: 'Facebook', verifiedDomains: ['facebook.com', 'meta.com'], loopback: false },
  { name: 'Instagram', verifiedDomains: ['instagram.com', 'meta.com'], loopback: false },
  { name: 'WhatsApp', verifiedDomains: ['whatsapp.com', 'meta.com'], loopback: false },
];

/** Parses PROTECTED_BRANDS: `brand=domain|domain|loopback,brand,…` (`loopback` is not a domain: see ProtectedBrand). */
export function parseBrandList(raw: string): ProtectedBrand[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name = '', domains = ''] = entry.split('=');
      const locations = domains.split('|').map((d) => d.trim().toLowerCase()).filter(Boolean);
      return { name: name.trim(), verifiedDomains: locations.filter((d) => d !== 'loopback'), loopback: locations.includes('loopback') };
    });
}

/**
 * The brands registration protects: PROTECTED_BRANDS (or the built-in list), and always the
 * service's own name, verified on the service's own host and on loopback. An operator who lists
 * only their own brands must not thereby let an app call itself "Concierge" on Concierge's own
 * consent page; an entry of theirs for the name adds its domains to the own host, it cannot remove
 * the name, nor loopback: without it, a native client connecting to this service under the name
 * people gave it (`claude mcp add … concierge`) could not register at all.
 */
export function protectedBrands(configured: string | undefined, ownHost: string): ProtectedBrand[] {
  const brands = configured ? parseBrandList(configured) : DEFAULT_BRANDS;
  const own = skeleton(SERVICE_BRAND);
  const listed = brands.filter((b) => skeleton(b.name) === own);
  const service: ProtectedBrand = {
    name: SERVICE_BRAND,
    verifiedDomains: [...new Set([...listed.flatMap((b) => b.verifiedDomains), ownHost.toLowerCase()])],
    loopback: true,
  };
  return [service, ...brands.filter((b) => !listed.includes(b))];
}

/** Compatibility forms decomposed; combining marks (accents) and invisible characters, which carry no visible letter, removed. */
function bare(value: string): string {
  return value.normalize('NFKD').replace(/[\p{M}\p{Cf}]/gu, '');
}

/** One character as the letters it looks like (exact case first: capital Eta "Η" is an H, small "η" an n). */
function foldChar(ch: string): string {
  const lower = ch.toLowerCase();
  return LOOKALIKES[ch] ?? LOOKALIKES[lower] ?? lower;
}

/** Letters only, lower case, look-alikes folded: what a name looks like at a glance. */
function fold(value: string): string {
  let out = '';
  for (const ch of bare(value)) out += foldChar(ch);
  return out;
}

/**
 * Why `clientName` cannot be compared with the brands, or null. The skeleton drops what it does
 * not know, so an unknown look-alike would make a brand vanish ("Gօօgle" with Armenian օ, "ɢoogle"
 * with a small capital): such names are refused rather than let through. A word may not mix
 * scripts, and every Latin letter must fold to a–z.
 */
export function lookalikeProblem(clientName: string): string | null {
  const scripts = mixedScripts(clientName);
  if (scripts) return `mixes scripts in one word (${scripts.join(', ')}); write each word in one script`;
  for (const ch of bare(clientName)) {
    if (/^\p{Script=Latin}$/u.test(ch) && /^\p{L}$/u.test(ch) && !/^[a-z]+$/.test(foldChar(ch))) {
      return `contains "${ch}" (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), a letter the look-alike check does not know; write the name with ordinary letters`;
    }
  }
  return null;
}

/** Words: runs of letters; runs of single letters ("G o o g l e") are joined back into one. */
function words(folded: string): string[] {
  const raw = folded.split(/[^a-z]+/).filter(Boolean);
  const joined: string[] = [];
  let run = '';
  for (const w of raw) {
    if (w.length === 1) {
      run += w;
      continue;
    }
    if (run) joined.push(run);
    run = '';
    joined.push(w);
  }
  if (run) joined.push(run);
  return joined.map(shapes);
}

/** Letter pairs that read as one letter: "rn" as "m", "vv" as "w", "cl" as "d". */
function shapes(word: string): string {
  return word.replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/cl/g, 'd');
}

export function skeleton(value: string): string {
  return shapes(fold(value).replace(/[^a-z]+/g, ''));
}

/**
 * The words a reader sees where the writing shows a boundary without a space: case ("MetaAI",
 * "myAWS", "AWSConsole": lower then upper, or the last capital of a run before a lower-case
 * letter) and digits ("AWS2", "Meta4U"). Done after compatibility forms are decomposed (so that
 * "ＭｅｔａＡＩ" splits like "MetaAI") and before case is folded away. Digits and symbols become
 * separators here, not leetspeak: a digit at a word's edge reads as a number ("AWS2"), and folding
 * it ("awsz") would hide the brand. Leetspeak inside a word ("M3ta") is the other reading's job.
 */
function visibleWords(value: string): string[] {
  const split = bare(value)
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  let out = '';
  for (const ch of split) out += /^\p{L}$/u.test(ch) ? foldChar(ch) : ' ';
  return words(out);
}

/**
 * The brands a client name claims. Brands of five letters or more match anywhere in the name's
 * skeleton ("MyGoogleHelper"); shorter ones ("Meta", "AWS") only as a whole word, so that
 * "Metadata Explorer" or "Metallica Fans" is not taken for Meta. A name's words are read two ways,
 * and a short brand is claimed if either reading has it: folded with leetspeak and split at
 * separators ("M3ta AI", "4WS"), and split where case or digits show a boundary ("MetaAI",
 * "AWSConsole", "myAWS", "AWS2", "Meta4U"). Either reading alone would let the other's names through.
 */
export function brandsClaimedBy(clientName: string, brands: ProtectedBrand[]): ProtectedBrand[] {
  const whole = skeleton(clientName);
  const nameWords = new Set([...words(fold(clientName)), ...visibleWords(clientName)]);
  return brands.filter((brand) => {
    const mark = skeleton(brand.name);
    if (mark === '') return false;
    return mark.length >= 5 ? whole.includes(mark) : nameWords.has(mark) || whole === mark;
  });
}

/** The host of an https URI, in lower case; null for anything else. */
function httpsHost(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  return url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
}

/** The host of an http or https URL, lowercased; null for anything else. */
function webHost(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.hostname.toLowerCase() : null;
}

/** True when `uri` is https on one of `domains` (or a subdomain of one). */
export function onVerifiedDomain(uri: string, domains: string[]): boolean {
  const host = httpsHost(uri);
  return host !== null && domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/**
 * True when `uri` is the brand's own site: http(s) on one of `domains` itself or its www. host. Not
 * any subdomain, unlike onVerifiedDomain: brands host pages that are other people's under
 * subdomains of their domains (apps.apple.com, chromewebstore.google.com, apps.microsoft.com), and
 * an app's store page is an honest website for it.
 */
function onBrandSite(uri: string, domains: string[]): boolean {
  // http too: a client_uri may be loopback http (the service's own origin in development), and
  // the service's page shown as a client's website borrows its trust as much over http.
  const host = webHost(uri);
  return host !== null && domains.some((d) => host === d || host === `www.${d}`);
}

/** True when `uri` is somewhere `brand` is verified: its domains, or loopback when it ships native apps. */
export function verifiedFor(uri: string, brand: ProtectedBrand): boolean {
  return onVerifiedDomain(uri, brand.verifiedDomains) || (brand.loopback && isLoopbackUri(uri));
}

/**
 * The brand whose own site `clientUri` is on while the redirect URIs are not where it is verified,
 * or null. The consent page shows client_uri as the app's website, so "Trip Helper" with
 * https://claude.ai would borrow Claude's trust as surely as the name would. Only the brand's own
 * site counts (onBrandSite): a store page on one of its subdomains is the app's. A host several
 * brands share (claude.ai: Anthropic and Claude; github.com: GitHub and Copilot) is fine when one
 * of them vouches for every redirect URI.
 */
export function unverifiedWebsite(clientUri: string, redirectUris: string[], brands: ProtectedBrand[]): ProtectedBrand | null {
  const owners = brands.filter((brand) => onBrandSite(clientUri, brand.verifiedDomains));
  if (owners.length === 0 || owners.some((brand) => redirectUris.every((uri) => verifiedFor(uri, brand)))) return null;
  return owners[0]!;
}

/** The first brand the name claims without every redirect URI being where that brand is verified. */
export function unverifiedBrand(clientName: string, redirectUris: string[], brands: ProtectedBrand[]): ProtectedBrand | null {
  for (const brand of brandsClaimedBy(clientName, brands)) {
    if (!redirectUris.every((uri) => verifiedFor(uri, brand))) return brand;
  }
  return null;
}
