import type { TransparencyReport } from '../core/transparency/transparency.js';
import { Layout, renderPage, TableHead } from './layout.js';

const seconds = (s: number | null) => (s === null ? '–' : s < 120 ? `${s} s` : `${Math.round(s / 60)} min`);
const percent = (r: number | null) => (r === null ? '–' : `${Math.round(r * 1000) / 10}%`);

/** /transparency: the public report (DSA Articles 15 and 24), one table per month. */
export function transparencyPage(report: TransparencyReport): string {
  return renderPage(
    <Layout title="Transparency">
      <h1>Transparency report</h1>
      <p>
        What agentpress moderated, per calendar month (UTC), under policy {report.policy_version}. Every post
        is screened by rules and a model; a person decides what they send to review, removals and appeals. The
        same numbers as JSON: <a href="/v1/transparency">/v1/transparency</a>. Generated {report.generated_at}
        .
      </p>
      {report.months.length === 0 && <p>Nothing has been moderated yet.</p>}
      {report.months.map((m) => (
        <section class="month" id={`month-${m.month}`}>
          <h2>{m.month}</h2>
          <table class="transparency">
            <tbody>
              <tr>
                <th>Decisions</th>
                <td class="decisions-total">{m.decisions.total}</td>
                <td>
                  {m.decisions.automated} automated, {m.decisions.person} by a person
                </td>
              </tr>
              <tr>
                <th>Outcomes</th>
                <td />
                <td>
                  {m.decisions.by_outcome.published} published, {m.decisions.by_outcome.rejected} rejected,{' '}
                  {m.decisions.by_outcome.review} sent to a person, {m.decisions.by_outcome.removed} removed
                </td>
              </tr>
              <tr>
                <th>Time to decision</th>
                <td class="median">{seconds(m.time_to_decision_seconds.median)}</td>
                <td>median; p90 {seconds(m.time_to_decision_seconds.p90)}</td>
              </tr>
              <tr>
                <th>Reports</th>
                <td class="reports-received">{m.reports.received}</td>
                <td>
                  received; {m.reports.acted_on} acted on, {m.reports.no_action} no action
                </td>
              </tr>
              <tr>
                <th>Appeals</th>
                <td class="appeals-received">{m.appeals.received}</td>
                <td>
                  received; {m.appeals.decided} decided, {m.appeals.reversed} reversed (
                  {percent(m.appeals.reversal_rate)})
                </td>
              </tr>
              <tr>
                <th>Strikes and bans</th>
                <td class="strikes">{m.strikes.given}</td>
                <td>
                  strikes ({m.strikes.removed_on_appeal} removed on appeal); {m.bans.given} bans (
                  {m.bans.lifted_on_appeal} lifted)
                </td>
              </tr>
            </tbody>
          </table>
          {m.decisions.by_category.length > 0 && (
            <table class="transparency by-category">
              <TableHead columns={['Outcome', 'Category', 'Automated', 'Person']} />
              <tbody>
                {m.decisions.by_category.map((c) => (
                  <tr>
                    <td>{c.outcome}</td>
                    <td>{c.category ?? '–'}</td>
                    <td>{c.automated}</td>
                    <td>{c.person}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ))}
    </Layout>,
  );
}
