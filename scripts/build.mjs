// Compiles src/ to dist/ (TypeScript to JavaScript, plus the SQL migrations and the stylesheet the
// code reads at run time), so production processes run plain node: no TypeScript loader.
// Runs before `npm start` (prestart); does nothing when dist/ is newer than every source file.
//
//   node scripts/build.mjs           build if stale
//   node scripts/build.mjs --force   build
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.built');
/** Files the compiled code reads from beside itself. */
const ASSETS = ['db/migrations', 'web/assets'];

function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

const inputs = [
  SRC,
  join(ROOT, 'tsconfig.json'),
  join(ROOT, 'tsconfig.build.json'),
  join(ROOT, 'package-lock.json'),
];
const stale =
  process.argv.includes('--force') ||
  !existsSync(STAMP) ||
  Math.max(
    ...inputs.filter(existsSync).map((p) => (statSync(p).isDirectory() ? newest(p) : statSync(p).mtimeMs)),
  ) > statSync(STAMP).mtimeMs;
if (!stale) process.exit(0);

const started = Date.now();
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error(
    'build: dist/ is out of date and TypeScript is not installed (run `npm install`, or build where it is)',
  );
  process.exit(1);
}
rmSync(STAMP, { force: true });
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
for (const asset of ASSETS) {
  rmSync(join(DIST, asset), { recursive: true, force: true });
  mkdirSync(dirname(join(DIST, asset)), { recursive: true });
  cpSync(join(SRC, asset), join(DIST, asset), { recursive: true });
}
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
console.error(`build: src/ compiled to dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
