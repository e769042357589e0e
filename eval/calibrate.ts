/**
 * Calibration of the local moderator's thresholds on the policy's own examples (never on the
 * eval set, which is the held-out test):
 *
 *  - abuse and quality scores by cross-validation: each policy example is scored by a classifier
 *    trained without it (its fold), and the table shows, per threshold, how many held-out
 *    allowed texts would be flagged and how many violating (or failing) ones would be caught;
 *  - near-duplicate similarity between distinct policy examples, and between each example and
 *    copies of it with words changed.
 *
 *   npx tsx eval/calibrate.ts            # 10 folds
 *   npx tsx eval/calibrate.ts --loo      # leave one out (slower)
 */
import { classify, trainClassifier } from '../src/core/moderation/classifier.js';
import { LOCAL_THRESHOLDS } from '../src/core/moderation/moderator.js';
import { fingerprint, similarity } from '../src/core/moderation/near-duplicate.js';
import { prefilter } from '../src/core/moderation/prefilter.js';
import { POLICY } from '../src/core/policy/document.js';
import type { Policy } from '../src/core/policy/types.js';

type Kind = 'passing' | 'failing' | 'violating' | 'non_violating';
interface Example {
  kind: Kind;
  category: string | null;
  text: string;
  /** Where it sits in the policy, to remove it from a training copy. */
  path: { section: 'quality' | number; list: Kind; index: number };
}

function examples(policy: Policy): Example[] {
  const out: Example[] = [];
  const add = (kind: Kind, category: string | null, section: 'quality' | number, texts: string[]) => {
    texts.forEach((text, index) => {
      out.push({ kind, category, text, path: { section, list: kind, index } });
    });
  };
  add('passing', null, 'quality', policy.quality_bar.passing);
  add('failing', null, 'quality', policy.quality_bar.failing);
  policy.abuse.forEach((c, section) => {
    add('violating', c.id, section, c.violating);
    add('non_violating', c.id, section, c.non_violating);
  });
  return out;
}

/** A copy of the policy without the given examples. */
function without(policy: Policy, drop: readonly Example[]): Policy {
  const copy = structuredClone(policy);
  const key = (e: Example) => `${e.path.section}/${e.path.list}/${e.path.index}`;
  const gone = new Set(drop.map(key));
  const keep = (section: 'quality' | number, list: Kind, xs: string[]) =>
    xs.filter((_, index) => !gone.has(`${section}/${list}/${index}`));
  copy.quality_bar.passing = keep('quality', 'passing', policy.quality_bar.passing);
  copy.quality_bar.failing = keep('quality', 'failing', policy.quality_bar.failing);
  copy.abuse = policy.abuse.map((c, i) => ({
    ...c,
    violating: keep(i, 'violating', c.violating),
    non_violating: keep(i, 'non_violating', c.non_violating),
  }));
  return copy;
}

function main(): void {
  const all = examples(POLICY);
  const folds = process.argv.includes('--loo') ? all.length : 10;
  const scored: { ex: Example; abuse: number; category: string | null; quality: number }[] = [];
  for (let f = 0; f < folds; f++) {
    const held = all.filter((_, i) => i % folds === f);
    const model = trainClassifier(without(POLICY, held));
    for (const ex of held) {
      const c = classify(null, ex.text, model);
      scored.push({ ex, abuse: c.worst?.score ?? 0, category: c.category, quality: c.quality });
    }
  }
  const allowed = scored.filter((s) => s.ex.kind !== 'violating');
  const violating = scored.filter((s) => s.ex.kind === 'violating');
  const pct = (n: number, d: number) => `${n}/${d} (${((100 * n) / Math.max(1, d)).toFixed(0)}%)`;
  console.log(`Policy ${POLICY.version}: ${all.length} examples, ${folds}-fold cross-validation\n`);
  console.log(
    'Abuse (worst window, P(abusive) x P(category)): held-out allowed texts flagged / violating caught',
  );
  const grid = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
  let firstClean: number | null = null;
  for (const th of grid) {
    const fp = allowed.filter((s) => s.abuse >= th).length;
    const tp = violating.filter((s) => s.abuse >= th);
    const right = tp.filter((s) => s.category === s.ex.category).length;
    if (fp === 0 && firstClean === null) firstClean = th;
    console.log(
      `  >= ${th.toFixed(2)}  allowed flagged ${pct(fp, allowed.length).padEnd(14)} violating caught ${pct(tp.length, violating.length).padEnd(14)} right category ${right}`,
    );
  }
  const corroborated = (s: (typeof scored)[number]) =>
    s.abuse >= LOCAL_THRESHOLDS.abuseCorroborated &&
    prefilter(null, s.ex.text).signals.some((g) =>
      ['privacy.pattern', 'target.reader', 'spam.pattern', 'injection.dialogue'].includes(g.id),
    );
  console.log(
    `  >= ${LOCAL_THRESHOLDS.abuseCorroborated.toFixed(2)} with a corroborating rule signal: allowed flagged ${pct(allowed.filter(corroborated).length, allowed.length)}, violating caught ${pct(violating.filter(corroborated).length, violating.length)}`,
  );
  console.log(
    `  lowest threshold flagging no held-out allowed text: ${firstClean ?? 'none'}; moderator uses abuseReview=${LOCAL_THRESHOLDS.abuseReview}, abuseCorroborated=${LOCAL_THRESHOLDS.abuseCorroborated}\n`,
  );

  const passing = scored.filter((s) => s.ex.kind === 'passing' || s.ex.kind === 'non_violating');
  const failing = scored.filter((s) => s.ex.kind === 'failing');
  console.log('Quality (whole text, P(fails the bar)): held-out passing texts over / failing texts over');
  for (const th of grid)
    console.log(
      `  >= ${th.toFixed(2)}  passing ${pct(passing.filter((s) => s.quality >= th).length, passing.length).padEnd(14)} failing ${pct(failing.filter((s) => s.quality >= th).length, failing.length)}`,
    );
  console.log(`  moderator uses quality=${LOCAL_THRESHOLDS.quality} together with a quality rule\n`);

  // Near duplicates: distinct examples, and each story example with every k-th word replaced.
  const stories = all.filter((e) => e.text.split(/\s+/).length >= 60).map((e) => e.text);
  const fps = stories.map(fingerprint);
  let maxDistinct = 0;
  for (let i = 0; i < fps.length; i++)
    for (let j = i + 1; j < fps.length; j++)
      maxDistinct = Math.max(maxDistinct, similarity(fps[i]!, fps[j]!));
  console.log(
    `Near duplicates (threshold ${LOCAL_THRESHOLDS.nearDuplicate}), ${stories.length} policy texts of 60+ words`,
  );
  console.log(`  distinct texts: highest similarity ${maxDistinct}`);
  for (const every of [40, 25, 15, 10]) {
    const sims = stories.map((t, i) => {
      const edited = t
        .split(/(\s+)/)
        .map((w, k) => (k % (2 * every) === 2 * every - 2 && /\w/.test(w) ? 'changed' : w))
        .join('');
      return similarity(fps[i]!, fingerprint(edited));
    });
    sims.sort((a, b) => a - b);
    const caught = sims.filter((s) => s >= LOCAL_THRESHOLDS.nearDuplicate).length;
    console.log(
      `  one word in ${every} changed: lowest ${sims[0]}, median ${sims[Math.floor(sims.length / 2)]}, caught ${pct(caught, sims.length)}`,
    );
  }
}

main();
