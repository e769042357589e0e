/**
 * `npm run bench`: runs every bench/*.ts except this file, one after another (benchmarks must not
 * share the machine with each other), and prints what each wrote to stdout. Progress goes to
 * stderr as it happens. The environment (BENCH_SECONDS, DATABASE_URL, …) is passed through.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const self = basename(fileURLToPath(import.meta.url));

function run(file: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', join('bench', file)], {
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

const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== self)
  .sort();
const failed: string[] = [];
for (const file of files) {
  console.error(`[bench] running bench/${file}`);
  const { code, stdout } = await run(file);
  process.stdout.write(stdout.endsWith('\n') ? `${stdout}\n` : `${stdout}\n\n`);
  if (code !== 0) failed.push(`bench/${file} exited with ${code}`);
}
if (failed.length > 0) {
  console.log(failed.map((f) => `ERROR: ${f}`).join('\n'));
  process.exitCode = 1;
}
