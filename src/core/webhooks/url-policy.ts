import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to its addresses; injectable so tests can play a hostile DNS. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class UrlRefused extends Error {}

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

/** The well-known NAT64 prefix (RFC 6052): the IPv4 address is always the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** Global unicast (IANA): everything outside 2000::/3 is reserved, local or special-purpose. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * IPv4-mapped, IPv4-translated and well-known-prefix NAT64 forms are judged as the IPv4 address
 * they carry. Returns null for a form whose carried address cannot be known: the local-use NAT64
 * prefix 64:ff9b:1::/48 (RFC 8215) may embed the IPv4 address at any of several offsets.
 */
function unwrap(addr: Parsed): Parsed | null {
  if (addr.kind() !== 'ipv6') return addr;
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const range = v6.range();
  if (range === 'rfc6052' && !v6.match(NAT64_WELL_KNOWN)) return null;
  if (range === 'rfc6052' || range === 'rfc6145') {
    const b = v6.toByteArray();
    return ipaddr.fromByteArray(b.slice(12)) as ipaddr.IPv4;
  }
  return v6;
}

/** Only public unicast addresses receive deliveries (no loopback, private, link-local, CGNAT, ULA, …). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const a = unwrap(ipaddr.parse(address));
  if (a?.range() !== 'unicast') return false;
  // ipaddr.js calls any unlisted IPv6 address "unicast", IPv4-compatible ::a.b.c.d included.
  return a.kind() === 'ipv4' || a.match(GLOBAL_UNICAST_V6);
}

/** WEBHOOK_ALLOW_TARGETS: addresses or CIDRs that may receive deliveries over http on any port. */
export class AllowList {
  readonly #ranges: [Parsed, number][];
  constructor(entries: readonly string[]) {
    this.#ranges = entries.map((e) => {
      if (e.includes('/')) return ipaddr.parseCIDR(e);
      const a = ipaddr.parse(e);
      return [a, a.kind() === 'ipv4' ? 32 : 128];
    });
  }
  get empty(): boolean {
    return this.#ranges.length === 0;
  }
  has(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const a = ipaddr.parse(address);
    return this.#ranges.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits));
  }
}

export interface Vetted {
  url: URL;
  /** The addresses checked; delivery connects to one of these and nothing else. */
  addresses: string[];
  /** True when the target is on WEBHOOK_ALLOW_TARGETS (http and any port allowed). */
  allowListed: boolean;
}

/**
 * The rule for a webhook URL: https, port 443, no user-info, a host that resolves only to public
 * addresses. WEBHOOK_ALLOW_TARGETS is the only way around it, and only for exactly those addresses.
 */
export class UrlPolicy {
  constructor(
    private readonly allow: AllowList,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UrlRefused('not a URL');
    }
    if (url.username || url.password) throw new UrlRefused('credentials in the URL are not allowed');
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new UrlRefused('the scheme must be https');
    if (url.hash) throw new UrlRefused('a fragment is not allowed');
    return url;
  }

  /** Addresses of the URL's host: the literal itself, or what the resolver answers. */
  async addressesOf(url: URL): Promise<string[]> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host)) return [ipaddr.parse(host).toString()];
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      throw new UrlRefused(`the host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new UrlRefused(`the host ${host} does not resolve`);
    return addresses.map((a) => (ipaddr.isValid(a) ? ipaddr.parse(a).toString() : a));
  }

  /** Checks a set of addresses for a URL (also used at connect time on the addresses about to be dialled). */
  vetAddresses(url: URL, addresses: string[]): Vetted {
    const allowListed = !this.allow.empty && addresses.every((a) => this.allow.has(a));
    if (!allowListed) {
      if (url.protocol !== 'https:') throw new UrlRefused('the scheme must be https');
      if (url.port !== '' && url.port !== '443') throw new UrlRefused('the port must be 443');
      const bad = addresses.find((a) => !isPublicAddress(a));
      if (bad) throw new UrlRefused(`the host resolves to a non-public address (${bad})`);
    }
    return { url, addresses, allowListed };
  }

  async vet(raw: string): Promise<Vetted> {
    const url = this.parse(raw);
    return this.vetAddresses(url, await this.addressesOf(url));
  }
}
