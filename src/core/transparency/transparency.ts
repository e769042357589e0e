import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { queryRows } from '../../db/client.js';
import type { Deps } from '../context.js';
import { POLICY } from '../policy/document.js';

/** How many months the report covers at most (the newest first). */
export const TRANSPARENCY_MONTHS = 24;

const count = z.number().int();

export const transparencyMonth = z.object({
  month: z.string().describe('YYYY-MM, UTC'),
  decisions: z.object({
    total: count,
    automated: count.describe('Taken by rules or a model.'),
    person: count.describe('Taken by a person (review outcomes and removals).'),
    by_outcome: z.object({ published: count, review: count, rejected: count, removed: count }),
    by_category: z.array(
      z.object({
        outcome: z.string(),
        category: z.string().nullable(),
        automated: count,
        person: count,
      }),
    ),
  }),
  time_to_decision_seconds: z
    .object({
      decisions: count.describe('Publications and rejections counted (from the post to its decision).'),
      median: z.number().nullable(),
      p90: z.number().nullable(),
    })
    .describe('Nearest rank: the value at rank ceil(p x n) of the sorted waits.'),
  reports: z.object({
    received: count,
    acted_on: count.describe('Resolved this month by removing the post.'),
    no_action: count.describe('Resolved this month with the post found within the policy.'),
  }),
  appeals: z.object({
    received: count,
    decided: count,
    upheld: count,
    reversed: count,
    reversal_rate: z
      .number()
      .nullable()
      .describe('reversed / decided this month; null when none was decided.'),
  }),
  strikes: z.object({ given: count, removed_on_appeal: count }),
  bans: z.object({ given: count, lifted_on_appeal: count }),
});
export type TransparencyMonth = z.infer<typeof transparencyMonth>;

export const transparencyReport = z
  .object({
    generated_at: z.string(),
    policy_version: z.string(),
    period: z.literal('calendar month, UTC'),
    months: z.array(transparencyMonth).describe('Months with any activity, newest first.'),
  })
  .describe('What was moderated (DSA Articles 15 and 24): decisions, reports, appeals, strikes and bans.');
export type TransparencyReport = z.infer<typeof transparencyReport>;

const month = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM')`);
const n = (v: unknown) => Number(v ?? 0);

/** The public transparency report, computed from the decisions log, reports and appeals; cached. */
export class Transparency {
  #cached: { at: number; report: TransparencyReport } | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly cacheMs = 300_000,
  ) {}

  async report(): Promise<TransparencyReport> {
    const now = this.deps.clock.now().getTime();
    if (this.#cached && now - this.#cached.at < this.cacheMs && now >= this.#cached.at)
      return this.#cached.report;
    const report = await this.compute();
    this.#cached = { at: now, report };
    return report;
  }

  private async compute(): Promise<TransparencyReport> {
    const { db, clock } = this.deps;
    const decided = await queryRows<{
      m: string;
      outcome: string;
      category: string | null;
      automated: boolean;
      n: string;
      strikes: string;
      bans: string;
    }>(
      db,
      sql`select ${month('decided_at')} as m, outcome, category, automated, count(*) as n,
            count(*) filter (where strike) as strikes, count(*) filter (where banned) as bans
          from decisions group by 1, 2, 3, 4`,
    );
    const waits = await queryRows<{ m: string; n: string; median: string | null; p90: string | null }>(
      db,
      sql`select ${month('decided_at')} as m, count(*) as n,
            percentile_disc(0.5) within group (order by waited_ms) as median,
            percentile_disc(0.9) within group (order by waited_ms) as p90
          from decisions where outcome in ('published', 'rejected') group by 1`,
    );
    const received = await queryRows<{ m: string; n: string }>(
      db,
      sql`select ${month('created_at')} as m, count(*) as n from reports group by 1`,
    );
    const resolved = await queryRows<{ m: string; resolution: string; n: string }>(
      db,
      sql`select ${month('resolved_at')} as m, resolution, count(*) as n from reports
          where status = 'resolved' group by 1, 2`,
    );
    const appealsIn = await queryRows<{ m: string; n: string }>(
      db,
      sql`select ${month('created_at')} as m, count(*) as n from appeals group by 1`,
    );
    const appealsOut = await queryRows<{
      m: string;
      status: string;
      n: string;
      strikes: string;
      lifts: string;
    }>(
      db,
      sql`select ${month('decided_at')} as m, status, count(*) as n,
            count(*) filter (where strike_removed) as strikes, count(*) filter (where ban_lifted) as lifts
          from appeals where decided_at is not null group by 1, 2`,
    );

    const months = new Map<string, TransparencyMonth>();
    const at = (m: string): TransparencyMonth => {
      let e = months.get(m);
      if (!e) {
        e = {
          month: m,
          decisions: {
            total: 0,
            automated: 0,
            person: 0,
            by_outcome: { published: 0, review: 0, rejected: 0, removed: 0 },
            by_category: [],
          },
          time_to_decision_seconds: { decisions: 0, median: null, p90: null },
          reports: { received: 0, acted_on: 0, no_action: 0 },
          appeals: { received: 0, decided: 0, upheld: 0, reversed: 0, reversal_rate: null },
          strikes: { given: 0, removed_on_appeal: 0 },
          bans: { given: 0, lifted_on_appeal: 0 },
        };
        months.set(m, e);
      }
      return e;
    };
    for (const r of decided) {
      const e = at(r.m);
      const k = n(r.n);
      e.decisions.total += k;
      e.decisions[r.automated ? 'automated' : 'person'] += k;
      const outcome = r.outcome as keyof TransparencyMonth['decisions']['by_outcome'];
      if (outcome in e.decisions.by_outcome) e.decisions.by_outcome[outcome] += k;
      let c = e.decisions.by_category.find((x) => x.outcome === r.outcome && x.category === r.category);
      if (!c) {
        c = { outcome: r.outcome, category: r.category, automated: 0, person: 0 };
        e.decisions.by_category.push(c);
      }
      c[r.automated ? 'automated' : 'person'] += k;
      e.strikes.given += n(r.strikes);
      e.bans.given += n(r.bans);
    }
    for (const r of waits)
      at(r.m).time_to_decision_seconds = {
        decisions: n(r.n),
        median: r.median === null ? null : n(r.median) / 1000,
        p90: r.p90 === null ? null : n(r.p90) / 1000,
      };
    for (const r of received) at(r.m).reports.received += n(r.n);
    for (const r of resolved) {
      const e = at(r.m);
      if (r.resolution === 'content_removed') e.reports.acted_on += n(r.n);
      else if (r.resolution === 'no_action') e.reports.no_action += n(r.n);
    }
    for (const r of appealsIn) at(r.m).appeals.received += n(r.n);
    for (const r of appealsOut) {
      const e = at(r.m);
      e.appeals.decided += n(r.n);
      if (r.status === 'upheld') e.appeals.upheld += n(r.n);
      if (r.status === 'reversed') e.appeals.reversed += n(r.n);
      e.strikes.removed_on_appeal += n(r.strikes);
      e.bans.lifted_on_appeal += n(r.lifts);
    }
    for (const e of months.values()) {
      e.decisions.by_category.sort(
        (a, b) => a.outcome.localeCompare(b.outcome) || (a.category ?? '').localeCompare(b.category ?? ''),
      );
      e.appeals.reversal_rate =
        e.appeals.decided > 0 ? Math.round((e.appeals.reversed / e.appeals.decided) * 10_000) / 10_000 : null;
    }
    return {
      generated_at: clock.now().toISOString(),
      policy_version: POLICY.version,
      period: 'calendar month, UTC',
      months: [...months.values()]
        .sort((a, b) => b.month.localeCompare(a.month))
        .slice(0, TRANSPARENCY_MONTHS),
    };
  }
}
