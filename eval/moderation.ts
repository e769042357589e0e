/**
 * Moderation evaluation: runs every labelled story in eval/heldout (written blind) and
 * eval/stories (the development set) through the service's path
 * (story validation and normalisation, prefilter, LocalModerator) and prints the confusion
 * matrix, per-category precision and recall, the review share, false strikes and false
 * rejections of good stories.
 *
 *   npm run eval:moderation            # the figures
 *   npm run eval:moderation -- --list  # plus every item whose decision differs from its label
 *   npm run eval:moderation -- --no-corpus  # without the near-duplicate check against earlier items
 *   npm run eval:moderation -- --heldout-only | --dev-only
 *
 * Items are judged in order, as if posted one after another; each is compared for near duplicates
 * with the earlier items that were not rejected (see judgeAll in lib.ts).
 *
 * Exits non-zero only when something crashes, never because the figures are poor.
 */
import { LocalModerator } from '../src/core/moderation/moderator.js';
import {
  BLIND_A_DIR,
  BLIND_B_DIR,
  DEV_D_DIR,
  formatSummary,
  HELDOUT_D_DIR,
  HELDOUT_DIR,
  judgeAll,
  loadEvalSet,
  STORIES_DIR,
  summarise,
} from './lib.js';

async function report(title: string, dir: string): Promise<void> {
  const items = loadEvalSet(dir);
  const moderator = new LocalModerator();
  const nearDuplicates = !process.argv.includes('--no-corpus');
  const results = await judgeAll(items, moderator, { nearDuplicates });
  const byFile = new Map<string, number>();
  for (const item of items) byFile.set(item.file, (byFile.get(item.file) ?? 0) + 1);
  console.log(`## ${title}`);
  console.log(
    `Moderator: ${moderator.name}${nearDuplicates ? ', near-duplicate check against earlier items' : ''}`,
  );
  console.log(`Files: ${[...byFile].map(([f, n]) => `${f} ${n}`).join(', ')}`);
  console.log('');
  console.log(formatSummary(summarise(results), { list: process.argv.includes('--list') }));
  console.log('');
}

async function main(): Promise<void> {
  // eval/heldout-c was written blind and never looked at while building the moderator;
  // eval/blind-a and blind-b were too, but their misses were read after their first runs (the
  // README quotes those runs); eval/stories is the development set the rules were shaped on.
  if (!process.argv.includes('--dev-only')) {
    await report(
      'Held-out set (eval/heldout-d: written blind, never looked at while building)',
      HELDOUT_D_DIR,
    );
    await report('Held-out set (eval/heldout-c: written blind, never looked at while building)', HELDOUT_DIR);
  }
  if (!process.argv.includes('--heldout-only')) {
    await report('First blind set (eval/blind-a: its misses were read after its first run)', BLIND_A_DIR);
    await report('Second blind set (eval/blind-b: its misses were read after its first run)', BLIND_B_DIR);
    await report('Development set (eval/stories)', STORIES_DIR);
    await report('Development set written blind by another author (eval/dev-d)', DEV_D_DIR);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
