// The brand check on dynamic client registration. A client may not call itself after the service
// or a large technology company unless every redirect URI is on that brand's verified domains:
// otherwise "Claude" or "G00gle Calendar" on a consent page would borrow a trust it has not earned.
// Names are compared by their "skeleton": case, look-alike letters (Cyrillic, Greek, leetspeak),
// zero-width characters and separators ("G o o g l e", "Mi-cro_soft") do not change it.

export interface ProtectedBrand {
  /** As people write it. */
  name: string;
  /** Hosts (and their subdomains, over https only) a client using the name may redirect to. */
  verifiedDomains: string[];
}

/** The built-in list; PROTECTED_BRANDS replaces it. The service's own host is added at runtime. */
export const DEFAULT_BRANDS: ProtectedBrand[] = [
  { name: 'Concierge', verifiedDomains: [] },
  { name: 'Anthropic', verifiedDomains: ['claude.ai', 'claude.com', 'anthropic.com'] },
  { name: 'Claude', verifiedDomains: ['claude.ai', 'claude.com', 'anthropic.com'] },
  { name: 'OpenAI', verifiedDomains: ['chatgpt.com', 'openai.com'] },
  { name: 'ChatGPT', verifiedDomains: ['chatgpt.com', 'openai.com'] },
  { name: 'Google', verifiedDomains: ['google.com'] },
  { name: 'Gemini', verifiedDomains: ['google.com'] },
  { name: 'Microsoft', verifiedDomains: ['vscode.dev', 'microsoft.com'] },
  { name: 'VS Code', verifiedDomains: ['vscode.dev', 'microsoft.com'] },
  { name: 'Visual Studio', verifiedDomains: ['vscode.dev', 'microsoft.com'] },
  { name: 'Copilot', verifiedDomains: ['vscode.dev', 'microsoft.com', 'github.com'] },
  { name: 'GitHub', verifiedDomains: ['github.com'] },
  { name: 'Apple', verifiedDomains: ['apple.com'] },
  { name: 'Amazon', verifiedDomains: ['amazon.com'] },
  { name: 'AWS', verifiedDomains: ['amazon.com', 'aws.amazon.com'] },
  { name: 'Meta', verifiedDomains: ['meta.com', 'facebook.com'] },
  { name: 'Facebook', verifiedDomains: ['facebook.com', 'meta.com'] },
  { name: 'Instagram', verifiedDomains: ['instagram.com', 'meta.com'] },
  { name: 'WhatsApp', verifiedDomains: ['whatsapp.com', 'meta.com'] },
];

/** Parses PROTECTED_BRANDS: `brand=domain|domain,brand,…`. */
export function parseBrandList(raw: string): ProtectedBrand[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name = '', domains = ''] = entry.split('=');
      return { name: name.trim(), verifiedDomains: domains.split('|').map((d) => d.trim().toLowerCase()).filter(Boolean) };
    });
}

// Characters that look like Latin letters, mapped to the letter they imitate. Digits and symbols
// are leetspeak. 'i', 'l', '1', '|' and '!' are one class: "MicrosoftI" and "Microsoft1" both
// look like the real thing, so they all become 'l' (on both sides of the comparison).
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x',
  і: 'l', ї: 'l', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ү: 'y', ԍ: 'g', ѡ: 'w',
  // Greek
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'l', κ: 'k', μ: 'm', ν: 'v', ο: 'o', ρ: 'p', σ: 'o', ς: 'c', ϲ: 'c', τ: 't', υ: 'u', χ: 'x', ω: 'w', γ: 'y',
  // Latin letters that imitate others
  ɑ: 'a', ɡ: 'g', ɩ: 'l', ʟ: 'l', ᴏ: 'o',
  // Latin variants NFKC leaves alone
  ı: 'l', ł: 'l', ø: 'o', đ: 'd', ß: 'ss', æ: 'ae', œ: 'oe',
  // Leetspeak and symbols
  '0': 'o', '1': 'l', '2': 'z', '3': 'e', '4': 'a', '5': 's', '6': 'g', '7': 't', '8': 'b', '9': 'g',
  '@': 'a', $: 's', '|': 'l', '!': 'l', '€': 'e', '£': 'l',
  i: 'l',
};

/** Letters only, lower case, look-alikes folded: what a name looks like at a glance. */
function fold(value: string): string {
  const base = value
    .normalize('NFKD')
    // Combining marks (accents) and invisible formatting characters carry no visible letter.
    .replace(/[\p{M}\p{Cf}]/gu, '')
    .toLowerCase();
  let out = '';
  for (const ch of base) out += LOOKALIKES[ch] ?? ch;
  return out;
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
 * The brands a client name claims. Brands of five letters or more match anywhere in the name's
 * skeleton ("MyGoogleHelper"); shorter ones ("Meta", "AWS") only as a whole word, so that
 * "Metadata Explorer" is not taken for Meta.
 */
export function brandsClaimedBy(clientName: string, brands: ProtectedBrand[]): ProtectedBrand[] {
  const whole = skeleton(clientName);
  const nameWords = new Set(words(fold(clientName)));
  return brands.filter((brand) => {
    const mark = skeleton(brand.name);
    if (mark === '') return false;
    return mark.length >= 5 ? whole.includes(mark) : nameWords.has(mark) || whole === mark;
  });
}

/** True when `uri` is https on one of `domains` (or a subdomain of one). Loopback never is. */
export function onVerifiedDomain(uri: string, domains: string[]): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** The first brand the name claims without every redirect URI being on its verified domains. */
export function unverifiedBrand(clientName: string, redirectUris: string[], brands: ProtectedBrand[]): ProtectedBrand | null {
  for (const brand of brandsClaimedBy(clientName, brands)) {
    if (!redirectUris.every((uri) => onVerifiedDomain(uri, brand.verifiedDomains))) return brand;
  }
  return null;
}
