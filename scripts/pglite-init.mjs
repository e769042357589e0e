// Creates a new PGlite cluster in the directory given (initdb), then exits. src/db/client.ts runs
// this in a child process so the memory initdb needs (about 0.5 GiB of WASM heap that the
// process would keep) is returned to the system before the service opens the cluster.
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/pglite-init.mjs <data directory>');
  process.exit(2);
}
const lite = new PGlite({ dataDir: dir });
await lite.waitReady;
await lite.close();
