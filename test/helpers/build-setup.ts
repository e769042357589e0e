import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/cluster.js';

/** Tests that start real processes run the compiled dist/main.js, as `npm start` does: build it once, first. */
export default function setup(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}
