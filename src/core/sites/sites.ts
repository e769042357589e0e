import { Problem } from '../problems.js';

/** The four sibling sites share everything but their body shape, list rules and pages. */
export const SITE_KINDS = ['stories', 'messages', 'classifieds', 'events'] as const;

export type SiteKind = (typeof SITE_KINDS)[number];

export interface SiteConfig {
  /** Host name (without port) that selects this site; '*' matches any host. */
  host: string;
  kind: SiteKind;
}

/** Picks the site for a request's host name; `*` matches any host. */
export function siteForHost(sites: readonly SiteConfig[], hostname: string): SiteKind {
  const host = hostname.toLowerCase().replace(/:\d+$/, '');
  const match = sites.find((s) => s.host === host) ?? sites.find((s) => s.host === '*');
  if (!match) throw new Problem('not_found', { detail: `No site is served at host ${host}.` });
  return match.kind;
}
