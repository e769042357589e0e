/**
 * Webhook URLs both the URL policy (unit) and POST /v1/webhooks (e2e) refuse as non-public
 * addresses: loopback, private ranges, CGNAT, IPv6 loopback/unique-local/link-local, IPv4-mapped
 * and NAT64 forms, numeric IPv4 spellings, and a name that resolves to a private address
 * (`internal.example` -> 10.1.2.3 in both test resolvers). Each test adds its own further cases.
 */
export const NON_PUBLIC_URLS = [
  'https://127.0.0.1/',
  'https://localhost/',
  'https://10.0.0.1/',
  'https://172.16.5.4/',
  'https://192.168.1.1/',
  'https://100.64.0.1/',
  'https://[::1]/',
  'https://[fc00::1]/',
  'https://[fe80::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[64:ff9b::a00:1]/',
  'https://2130706433/',
  'https://0177.0.0.1/',
  'https://internal.example/',
] as const;
