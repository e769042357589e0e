/**
 * Moderation evaluation: runs every labelled story in eval/stories through the service's path
 * (story validation and normalisation, prefilter, LocalModerator) and prints the confusion
 * matrix, per-category precision and recall, the review share, false strikes and false
 * rejections of good stories.
 *
 *   npm run eval:moderation            # the figures
 *   npm run eval:moderation -- --list  # plus every item whose decision differs from its label
 *
 * Exits non-zero only when something crashes, never because the figures are poor.
 */
import { LocalModerator } from '../src/core/moderation/moderator.js';
import { formatSummary, type Judged, judge, loadEvalSet, summarise } from './lib.js';

async function main(): Promise<void> {
  const items = loadEvalSet();
  const moderator = new LocalModerator();
  const results: Judged[] = [];
  for (const item of items) results.push(await judge(item, moderator));
  const byFile = new Map<string, number>();
  for (const item of items) byFile.set(item.file, (byFile.get(item.file) ?? 0) + 1);
  console.log(`Moderator: ${moderator.name}`);
  console.log(`Files: ${[...byFile].map(([f, n]) => `${f} ${n}`).join(', ')}`);
  console.log('');
  console.log(formatSummary(summarise(results), { list: process.argv.includes('--list') }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
