import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCHES, END, START, withResults } from '../../bench/run.js';

describe('npm run bench', () => {
  it('runs reads, posts, search, webhooks and the process figures', () => {
    expect([...BENCHES]).toEqual(['read.ts', 'post.ts', 'search.ts', 'webhooks.ts', 'process.ts']);
  });

  it('rewrites only what lies between the README markers, and can do it again', () => {
    const readme = `# x\n\n## Benchmarks\n\nintro\n${START}\nold table\n${END}\n\n## Next\n`;
    const once = withResults(readme, '| a | b |\n| --- | --- |\n| 1 | 2 |');
    expect(once).toBe(
      `# x\n\n## Benchmarks\n\nintro\n${START}\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n${END}\n\n## Next\n`,
    );
    expect(withResults(once, 'new')).toBe(
      `# x\n\n## Benchmarks\n\nintro\n${START}\n\nnew\n\n${END}\n\n## Next\n`,
    );
    expect(() => withResults('# no markers', 'x')).toThrow(/bench:start/);
  });

  it('the README carries the markers under Benchmarks', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const bench = readme.indexOf('## Benchmarks');
    expect(bench).toBeGreaterThan(0);
    expect(readme.indexOf(START)).toBeGreaterThan(bench);
    expect(readme.indexOf(END)).toBeGreaterThan(readme.indexOf(START));
  });
});
