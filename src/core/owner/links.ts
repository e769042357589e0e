import { and, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accountLinks } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import { hashToken, newId, newToken } from '../secrets.js';

export const LINK_TTL_MS = 60 * 60 * 1000;

export interface OwnerLink {
  url: string;
  expiresAt: Date;
}

/** A fresh one-hour account_url; only the token's hash is stored. */
export async function issueLink(
  exec: Executor,
  clock: Clock,
  baseUrl: string,
  accountId: string,
): Promise<OwnerLink> {
  const token = newToken('ap_link');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
  await exec.insert(accountLinks).values({
    id: newId('link'),
    accountId,
    tokenHash: hashToken(token),
    createdAt: now,
    expiresAt,
  });
  return { url: `${baseUrl}/account?token=${encodeURIComponent(token)}`, expiresAt };
}

/** The link for a token if it exists and has not expired. */
export async function findLiveLink(exec: Executor, clock: Clock, token: string) {
  const [link] = await exec
    .select()
    .from(accountLinks)
    .where(and(eq(accountLinks.tokenHash, hashToken(token)), gt(accountLinks.expiresAt, clock.now())))
    .limit(1);
  return link;
}

/** The JSON members every answer that needs the owner carries. */
export function linkMembers(link: OwnerLink) {
  return {
    account_url: link.url,
    account_url_expires_at: link.expiresAt.toISOString(),
    for_human: true as const,
  };
}
