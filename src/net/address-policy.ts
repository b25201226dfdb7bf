import { lookup as lookupCallback, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';

// Which addresses a URL the service will fetch or browse may point at. A URL an operator or a client
// hands us (a provider's start URL, a webhook, a client metadata document) must not reach the
// service's own machine or private network (server-side request forgery): loopback, private,
// carrier-grade NAT, link-local (cloud metadata at 169.254.169.254), unique-local, multicast,
// reserved and documentation ranges are not public. Names are resolved, and every address a name
// resolves to must be public. `localhost` and `*.localhost` are loopback whatever DNS says
// (RFC 6761; Chromium resolves them to loopback itself).

/** [first address, prefix length] of every IPv4 range that is not the public internet. */
const IPV4_NOT_PUBLIC: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function ipv4IsPublic(ip: string): boolean {
  const n = ipv4ToInt(ip);
  return !IPV4_NOT_PUBLIC.some(([first, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(ipv4ToInt(first) / 2 ** (32 - bits)));
}

/** The eight 16-bit groups of an IPv6 address (any spelling: `::`, an embedded dotted IPv4, a zone). */
function ipv6Groups(ip: string): number[] {
  const address = ip.split('%')[0]!;
  let tail: number[] = [];
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const n = ipv4ToInt(dotted[1]!);
    tail = [Math.floor(n / 65536), n % 65536];
    text = address.slice(0, -dotted[1]!.length).replace(/:$/, ':0').replace(/::0$/, '::');
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = [...parse(rest), ...tail];
  const fill = rest === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...fill, ...back];
}

function ipv6IsPublic(ip: string): boolean {
  const g = ipv6Groups(ip);
  if (g.length !== 8) return false;
  const embedded = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::, ::1, and the deprecated IPv4-compatible ::a.b.c.d
  if (zeros(6)) return false;
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d: the IPv4 address decides
  if (zeros(5) && g[5] === 0xffff) return ipv4IsPublic(embedded(g[6]!, g[7]!));
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return ipv4IsPublic(embedded(g[6]!, g[7]!));
  // NAT64 64:ff9b::a.b.c.d (and the local-use 64:ff9b:1::/48)
  if (g[0] === 0x64 && g[1] === 0xff9b) return g[2] === 0 && g.slice(3, 6).every((x) => x === 0) && ipv4IsPublic(embedded(g[6]!, g[7]!));
  // 6to4 2002:a.b.c.d::/48
  if (g[0] === 0x2002) return ipv4IsPublic(embedded(g[1]!, g[2]!));
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return false; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return false; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return false; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return false; // ff00::/8 multicast
  if (first === 0x2001 && g[1] === 0x0db8) return false; // 2001:db8::/32 documentation
  if (first === 0x2001 && g[1]! < 0x0200) return false; // 2001::/23 IETF protocol assignments (Teredo, ORCHID…)
  if (first === 0x0100 && zeros(0) && g[1] === 0 && g[2] === 0 && g[3] === 0) return false; // 100::/64 discard
  return true;
}

/** Whether an IP address (v4 or v6, as written in a URL or returned by DNS) is on the public internet. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return ipv4IsPublic(bare);
  if (isIPv6(bare.split('%')[0]!)) return ipv6IsPublic(bare);
  return false;
}

export class AddressPolicyError extends Error {
  override name = 'AddressPolicyError';
}

export interface AddressPolicy {
  /** The operator allows loopback and private addresses (development, or a provider on the private network). */
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (default: the system resolver). */
  resolve?: (hostname: string) => Promise<string[]>;
}

async function systemResolve(hostname: string): Promise<string[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}

/**
 * Refuses (AddressPolicyError) an http(s) URL whose host is, or resolves to, an address that is not
 * public, unless the policy allows private addresses. A name that does not resolve is refused too:
 * what it points at cannot be checked.
 */
export async function assertPublicUrl(raw: string | URL, policy: AddressPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressPolicyError('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AddressPolicyError('must be an http:// or https:// URL');
  if (policy.allowPrivate) return;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIPv4(literal) || isIPv6(literal)) {
    if (!isPublicAddress(literal)) throw new AddressPolicyError(`points at ${literal}, which is not a public address`);
    return;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw new AddressPolicyError(`points at ${host}, which is this machine (loopback)`);
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch {
    throw new AddressPolicyError(`has a host name, ${host}, that does not resolve, so where it points cannot be checked`);
  }
  if (addresses.length === 0) throw new AddressPolicyError(`has a host name, ${host}, that does not resolve, so where it points cannot be checked`);
  const inner = addresses.find((a) => !isPublicAddress(a));
  if (inner) throw new AddressPolicyError(`has a host name, ${host}, that resolves to ${inner}, which is not a public address`);
}

/**
 * The system resolver for a connection that must reach the public internet only: a name with any
 * address that is not public is refused (checked at connect time, so a name that changes its
 * answer between a check and the connection is caught). Pass as the `lookup` option of
 * http(s).request.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookupCallback(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const inner = addresses.find((a) => !isPublicAddress(a.address));
    if (inner || addresses.length === 0) return callback(new AddressPolicyError(`${hostname} resolves to ${inner?.address ?? 'nothing'}, which is not a public address`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
