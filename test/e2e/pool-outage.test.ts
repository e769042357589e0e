import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';

const url = process.env.DATABASE_URL;

if (url)
  describe('PostgreSQL: a connection the server ends between two statements of a transaction', () => {
    const opened: Database[] = [];
    afterAll(async () => {
      for (const d of opened) await d.close();
    });

    it('fails that transaction, is not thrown out of the process, and the pool serves the next query', async () => {
      const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
      opened.push(database);
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown) => uncaught.push(err);
      process.on('uncaughtException', onUncaught);
      const killer = new pg.Client({ connectionString: url });
      await killer.connect();
      try {
        const tx = database.db.transaction(async (t) => {
          const r = (await t.execute(sql`SELECT pg_backend_pid() AS pid`)) as unknown as {
            rows: { pid: number }[];
          };
          // The server ends this session (as a restart does) while no statement of ours runs.
          await killer.query('SELECT pg_terminate_backend($1)', [r.rows[0]!.pid]);
          await new Promise((res) => setTimeout(res, 300));
          await t.execute(sql`SELECT 1`);
        });
        await expect(tx).rejects.toThrow();
        expect(uncaught).toEqual([]);
        // Both pool slots are usable: the broken client was destroyed, not handed out again.
        const pids = await Promise.all(
          [0, 1].map(async () => {
            const r = (await database.db.execute(
              sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`,
            )) as unknown as {
              rows: { pid: number }[];
            };
            return r.rows[0]!.pid;
          }),
        );
        expect(pids).toHaveLength(2);
      } finally {
        process.off('uncaughtException', onUncaught);
        await killer.end();
      }
    });
  });
