/**
 * `npm run bench`: runs every benchmark in BENCHES one after another (benchmarks must not share
 * the machine with each other), prints what each wrote to stdout (markdown tables, each row beside
 * its baseline from the same run), and rewrites the README between `<!-- bench:start -->` and
 * `<!-- bench:end -->` with the results. Progress goes to stderr. The environment (BENCH_SECONDS,
 * DATABASE_URL, …) is passed through. `BENCH_README=0` leaves the README alone.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);

/** Every benchmark, in the order it runs; a file that is not there yet is skipped with a note. */
export const BENCHES = ['read.ts', 'post.ts', 'search.ts', 'webhooks.ts', 'process.ts'] as const;

export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

function run(file: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('bench', file)], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** The README with everything between the markers replaced by `body` (markers kept). */
export function withResults(readme: string, body: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} section`);
  return `${readme.slice(0, start + START.length)}\n\n${body.trim()}\n\n${readme.slice(end)}`;
}

async function main() {
  const sections: string[] = [];
  const failed: string[] = [];
  for (const file of BENCHES) {
    if (!existsSync(join(benchDir, file))) {
      console.error(`[bench] bench/${file} is not there; skipped`);
      sections.push(`_bench/${file}: not present in this checkout; skipped._`);
      continue;
    }
    console.error(`[bench] running bench/${file}`);
    const t0 = Date.now();
    const { code, stdout } = await run(file);
    process.stdout.write(stdout.endsWith('\n') ? `${stdout}\n` : `${stdout}\n\n`);
    console.error(`[bench] bench/${file} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    sections.push(stdout.trim());
    if (code !== 0) failed.push(`bench/${file} exited with ${code}`);
  }
  if (failed.length > 0) console.log(failed.map((f) => `ERROR: ${f}`).join('\n'));
  if (process.env.BENCH_README !== '0') {
    const head =
      `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} ` +
      `(${cpus().length} cores, node ${process.version}, BENCH_SECONDS=${process.env.BENCH_SECONDS ?? 10}` +
      `${process.env.DATABASE_URL ? ', PostgreSQL from DATABASE_URL' : ', PGlite only'}).` +
      (failed.length > 0 ? `\n\n${failed.map((f) => `ERROR: ${f}`).join('\n')}` : '');
    const file = join(root, 'README.md');
    writeFileSync(file, withResults(readFileSync(file, 'utf8'), [head, ...sections].join('\n\n')));
    // The README is formatted by Biome like everything else (`npm test` checks it): align the tables.
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/@biomejs/biome/bin/biome'), 'format', '--write', file],
      {
        stdio: 'ignore',
      },
    );
    console.error('[bench] README.md updated between the bench markers');
  }
  if (failed.length > 0) process.exitCode = 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
