import { describe, expect, it } from 'vitest';
import {
  AllowList,
  isPublicAddress,
  type Resolver,
  UrlPolicy,
  UrlRefused,
} from '../../src/core/webhooks/url-policy.js';
import { NON_PUBLIC_URLS } from '../helpers/ssrf.js';

/** A fake DNS: unknown names do not resolve. */
const dns: Record<string, string[]> = {
  'example.com': ['93.184.216.34'],
  'v6.example': ['2606:2800:220:1:248:1893:25c8:1946'],
  localhost: ['127.0.0.1'],
  'internal.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '10.0.0.1'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'empty.example': [],
  'garbage.example': ['not-an-address'],
  'rx.test': ['127.0.0.1'],
};
const resolver: Resolver = async (host) => {
  const a = dns[host];
  if (!a) throw new Error(`ENOTFOUND ${host}`);
  return a;
};

const open = new UrlPolicy(new AllowList([]), resolver);
const local = new UrlPolicy(new AllowList(['127.0.0.1']), resolver);

async function refusal(policy: UrlPolicy, url: string): Promise<string> {
  try {
    await policy.vet(url);
  } catch (e) {
    expect(e).toBeInstanceOf(UrlRefused);
    return (e as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('isPublicAddress', () => {
  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2001:4860:4860::8888',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
  ])('%s is public', (a) => {
    expect(isPublicAddress(a)).toBe(true);
  });

  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback /8', '127.0.0.2'],
    ['unspecified', '0.0.0.0'],
    ['this network', '0.1.2.3'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.16.5.4'],
    ['private 172.31', '172.31.255.255'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['CGNAT', '100.64.0.1'],
    ['CGNAT top', '100.127.255.254'],
    ['documentation', '192.0.2.1'],
    ['benchmarking', '198.18.0.1'],
    ['multicast', '224.0.0.1'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['ULA fc00::/7', 'fc00::1'],
    ['ULA fd', 'fd12:3456::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped private (hex form)', '::ffff:a00:1'],
    ['IPv4-translated private', '::ffff:0:a00:1'],
    ['NAT64 of 10.0.0.1', '64:ff9b::a00:1'],
    ['NAT64 of 127.0.0.1', '64:ff9b::7f00:1'],
    ['local-use NAT64 (RFC 8215), whatever the last 32 bits say', '64:ff9b:1::5db8:d822'],
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible private', '::a00:1'],
    ['6to4 (carries an IPv4 address)', '2002:a00:1::1'],
    ['Teredo', '2001:0:4136:e378::1'],
    ['IPv6 documentation', '2001:db8::1'],
    ['outside 2000::/3', '4000::1'],
    ['discard prefix', '100::1'],
    ['not an address', 'example.com'],
    ['empty', ''],
  ])('%s (%s) is not public', (_why, a) => {
    expect(isPublicAddress(a)).toBe(false);
  });

  it('judges octal, hex and long IPv4 spellings by their value', () => {
    expect(isPublicAddress('0177.0.0.1')).toBe(false);
    expect(isPublicAddress('2130706433')).toBe(false);
    expect(isPublicAddress('0x7f.0.0.1')).toBe(false);
  });
});

describe('AllowList', () => {
  it('is empty by default and matches nothing', () => {
    const a = new AllowList([]);
    expect(a.empty).toBe(true);
    expect(a.has('127.0.0.1')).toBe(false);
  });

  it('matches exactly the listed addresses', () => {
    const a = new AllowList(['127.0.0.1', '::1']);
    expect(a.empty).toBe(false);
    expect(a.has('127.0.0.1')).toBe(true);
    expect(a.has('::1')).toBe(true);
    expect(a.has('127.0.0.2')).toBe(false);
    expect(a.has('10.0.0.1')).toBe(false);
    expect(a.has('::2')).toBe(false);
    expect(a.has('garbage')).toBe(false);
  });

  it('matches CIDRs by prefix and never across families', () => {
    const a = new AllowList(['10.20.0.0/16', 'fd00::/8']);
    expect(a.has('10.20.3.4')).toBe(true);
    expect(a.has('10.21.0.1')).toBe(false);
    expect(a.has('fd12::1')).toBe(true);
    expect(a.has('fc00::1')).toBe(false);
    expect(a.has('::ffff:10.20.3.4')).toBe(false);
  });
});

describe('UrlPolicy without an allow list', () => {
  it('accepts a public https URL on port 443 and reports the vetted addresses', async () => {
    const v = await open.vet('https://example.com/hooks?x=1');
    expect(v).toMatchObject({ addresses: ['93.184.216.34'], allowListed: false });
    expect(v.url.href).toBe('https://example.com/hooks?x=1');
    expect((await open.vet('https://example.com:443/')).addresses).toEqual(['93.184.216.34']);
    expect((await open.vet('https://v6.example/')).addresses).toEqual(['2606:2800:220:1:248:1893:25c8:1946']);
    expect((await open.vet('https://93.184.216.34/')).addresses).toEqual(['93.184.216.34']);
  });

  it.each([
    ...NON_PUBLIC_URLS,
    'https://169.254.169.254/latest/meta-data/',
    'https://[::127.0.0.1]/',
    'https://0x7f.1/',
    'https://mapped.example/',
    'https://mixed.example/',
  ])('refuses %s as a non-public address', async (url) => {
    expect(await refusal(open, url)).toMatch(/non-public address/);
  });

  it('refuses other schemes, ports, credentials, fragments and junk', async () => {
    expect(await refusal(open, 'http://example.com/')).toMatch(/https/);
    expect(await refusal(open, 'ftp://example.com/')).toMatch(/https/);
    expect(await refusal(open, 'https://example.com:8443/')).toMatch(/port must be 443/);
    expect(await refusal(open, 'https://example.com:80/')).toMatch(/port must be 443/);
    expect(await refusal(open, 'https://user:pass@example.com/')).toMatch(/credentials/);
    expect(await refusal(open, 'https://user@example.com/')).toMatch(/credentials/);
    expect(await refusal(open, 'https://example.com/#frag')).toMatch(/fragment/);
    expect(await refusal(open, 'not a url')).toMatch(/not a URL/);
  });

  it('refuses names that do not resolve, resolve to nothing, or to something that is not an address', async () => {
    expect(await refusal(open, 'https://nowhere.example/')).toMatch(/does not resolve/);
    expect(await refusal(open, 'https://empty.example/')).toMatch(/does not resolve/);
    expect(await refusal(open, 'https://garbage.example/')).toMatch(/non-public/);
  });

  it('vetAddresses judges the addresses it is given, not a fresh lookup (the connect-time check)', () => {
    const url = new URL('https://example.com/');
    expect(open.vetAddresses(url, ['93.184.216.34']).allowListed).toBe(false);
    expect(() => open.vetAddresses(url, ['10.0.0.1'])).toThrow(/non-public address \(10\.0\.0\.1\)/);
    expect(() => open.vetAddresses(url, ['127.0.0.2'])).toThrow(UrlRefused);
  });
});

describe('UrlPolicy with WEBHOOK_ALLOW_TARGETS=127.0.0.1', () => {
  it('lets exactly that address receive over http on any port', async () => {
    const v = await local.vet('http://127.0.0.1:8123/hook');
    expect(v).toMatchObject({ addresses: ['127.0.0.1'], allowListed: true });
    expect((await local.vet('https://127.0.0.1:9443/')).allowListed).toBe(true);
    expect((await local.vet('http://rx.test:8080/')).allowListed).toBe(true);
  });

  it('keeps the public-https-443 rule for everything else', async () => {
    expect(await refusal(local, 'http://[::1]:8123/')).toMatch(/https/);
    expect(await refusal(local, 'https://[::1]/')).toMatch(/non-public/);
    expect(await refusal(local, 'http://10.0.0.1:8123/')).toMatch(/https/);
    expect(await refusal(local, 'https://10.0.0.1/')).toMatch(/non-public/);
    expect(await refusal(local, 'http://127.0.0.2:8123/')).toMatch(/https/);
    expect(await refusal(local, 'https://[::ffff:127.0.0.1]/')).toMatch(/non-public/);
    expect(await refusal(local, 'http://example.com/')).toMatch(/https/);
    expect(await refusal(local, 'https://example.com:8443/')).toMatch(/port/);
    expect(await refusal(local, 'http://user:pw@127.0.0.1:8123/')).toMatch(/credentials/);
    expect((await local.vet('https://example.com/')).allowListed).toBe(false);
  });
});
