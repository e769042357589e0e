import type { AppealItem } from '../core/moderation/appeals.js';
import type { ReviewDetail, ReviewItem } from '../core/moderation/staff.js';
import { CODE_TTL_MS } from '../core/owner/codes.js';
import { paragraphs } from '../core/posts/text.js';
import type { Actor, AuditView } from '../core/staff/audit.js';
import type { StaffView } from '../core/staff/members.js';
import { DECISION_CATEGORIES } from '../core/staff/review.js';
import { CodeField, Layout, PostButton, renderPage, TableHead } from './layout.js';

export interface ReportRow {
  id: string;
  post_id: string;
  category: string;
  detail: string | null;
  status: string;
  created_at: string;
}

/** Sign-in: a staff member's e-mail (a code is mailed, as to owners), or the shared admin token. */
export function adminSignInPage(error?: string): string {
  return renderPage(
    <Layout title="Staff sign-in">
      <h1>Staff console</h1>
      {error && <p class="error">{error}</p>}
      <form method="post" action="/admin/sign-in/code" id="email-sign-in">
        <label for="email">Staff e-mail address</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus />
        <button type="submit">E-mail me a code</button>
      </form>
      <details>
        <summary>Sign in with the admin token</summary>
        <form method="post" action="/admin/sign-in" id="token-sign-in">
          <label for="token">Admin token</label>
          <input id="token" name="token" type="password" autocomplete="off" required />
          <button type="submit">Sign in</button>
        </form>
      </details>
    </Layout>,
  );
}

/** The second step: the six-digit code mailed to the address. */
export function adminCodePage(opts: { email: string; sentTo: string; error?: string }): string {
  return renderPage(
    <Layout title="Staff sign-in">
      <h1>Enter the code</h1>
      {opts.error && <p class="error">{opts.error}</p>}
      <p>
        If {opts.sentTo} is on the staff, a six-digit code is on its way. It expires in {CODE_TTL_MS / 60_000}{' '}
        minutes.
      </p>
      <form method="post" action="/admin/sign-in/verify" id="code-sign-in">
        <input type="hidden" name="email" value={opts.email} />
        <CodeField autofocus />
        <button type="submit">Sign in</button>
      </form>
    </Layout>,
  );
}

function Chrome(props: { actor: Actor; title: string; children: preact.ComponentChildren }) {
  return (
    <Layout title={props.title}>
      <nav class="staff-nav">
        <a href="/admin">Review queue</a> · <a href="/admin/audit">Audit log</a>
        {props.actor.role === 'admin' && (
          <>
            {' '}
            · <a href="/admin/staff">Staff</a>
          </>
        )}
        <span class="muted" id="signed-in-as">
          {' '}
          · {props.actor.label} ({props.actor.role})
        </span>
      </nav>
      <form method="post" action="/admin/sign-out" class="sign-out">
        <button type="submit">Sign out</button>
      </form>
      {props.children}
    </Layout>
  );
}

const suspectedOf = (item: ReviewItem) => (item.model as { category?: string } | null)?.category ?? null;

function Claim({ item, actor }: { item: ReviewItem; actor: Actor }) {
  if (!item.claim) return <span class="claim free">open</span>;
  const mine = item.claim.claimed_by === actor.id;
  return (
    <span class={mine ? 'claim mine' : 'claim taken'}>
      {mine ? 'claimed by you' : `being reviewed by ${item.claim.claimed_by_label}`} until{' '}
      {item.claim.expires_at}
    </span>
  );
}

/** One appeal: the original verdict, its evidence and the owner's statement side by side. */
function Appeal({ a }: { a: AppealItem }) {
  const sor = a.post.statement_of_reasons;
  return (
    <article class="appeal" id={`appeal-${a.id}`} data-appeal-id={a.id}>
      <h2>{a.post.title ?? '(untitled)'}</h2>
      <p class="muted">
        {a.id} · post {a.post_id} · {a.post.status} · by {a.post.author.name} · appealed {a.created_at}
      </p>
      <div class="side-by-side">
        <section class="verdict">
          <h3>Original verdict</h3>
          {sor ? (
            <dl>
              <dt>Decision</dt>
              <dd>
                {sor.outcome} ({sor.policy_category ?? 'no category'}) by {sor.decided_by} on{' '}
                {sor.application_date}
              </dd>
              <dt>Reason</dt>
              <dd>{sor.decision_facts}</dd>
              <dt>Rules</dt>
              <dd>
                {sor.policy.version}: {sor.policy.rule_ids.join(', ')}
              </dd>
              <dt>Money and standing</dt>
              <dd>
                {sor.fine > 0 ? `fine ${sor.fine} micro-dollars` : 'no fine'}
                {sor.strike ? ', a strike' : ''}
                {sor.account_banned ? ', the account was banned' : ''}
              </dd>
            </dl>
          ) : (
            <p>No statement recorded.</p>
          )}
        </section>
        <section class="evidence">
          <h3>Evidence</h3>
          {sor && sor.evidence.length > 0 ? (
            <ul>
              {sor.evidence.map((e) => (
                <li>
                  {e.signal ? `${e.signal}: ` : ''}
                  {e.paragraph ? `paragraph ${e.paragraph}: ` : ''}
                  {e.quote ? <q>{e.quote}</q> : (e.note ?? '')}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No quoted evidence.</p>
          )}
        </section>
        <section class="statement">
          <h3>Owner's statement</h3>
          {paragraphs(a.statement).map((para) => (
            <p>{para}</p>
          ))}
        </section>
      </div>
      <details>
        <summary>Text (untrusted)</summary>
        {paragraphs(a.post.body).map((para) => (
          <p>{para}</p>
        ))}
      </details>
      {a.status === 'pending' ? (
        <form method="post" action={`/admin/appeals/${a.id}/decision`}>
          <label for={`appeal-reason-${a.id}`}>Reason</label>
          <input id={`appeal-reason-${a.id}`} name="reason" required />
          <button type="submit" name="decision" value="uphold" class="secondary">
            Uphold
          </button>
          <button type="submit" name="decision" value="reverse">
            Reverse
          </button>
        </form>
      ) : (
        <p class="muted">
          {a.status} by {a.decided_by} on {a.decided_at}: {a.reason}
        </p>
      )}
    </article>
  );
}

export function adminPage(opts: {
  actor: Actor;
  review: ReviewItem[];
  reports: ReportRow[];
  appeals?: AppealItem[];
  notice?: string;
  error?: string;
}): string {
  // The first item nobody else holds takes the focus: Enter opens it.
  const first = opts.review.find((p) => !p.claim || p.claim.claimed_by === opts.actor.id);
  return renderPage(
    <Chrome actor={opts.actor} title="Staff console">
      <h1>Review queue ({opts.review.length})</h1>
      {opts.notice && <p id="notice">{opts.notice}</p>}
      {opts.error && <p class="error">{opts.error}</p>}
      {opts.review.length === 0 && <p>Nothing waits for a person.</p>}
      {opts.review.map((p) => (
        <article class="review" id={`post-${p.id}`} data-post-id={p.id}>
          <h2>{p.title ?? '(untitled)'}</h2>
          <p class="muted">
            {p.id} · by {p.author.name} · {p.created_at} · suspected: {suspectedOf(p) ?? 'nothing named'} ·{' '}
            <Claim item={p} actor={opts.actor} />
          </p>
          <form method="post" action={`/admin/review/${p.id}/open`}>
            <button type="submit" name="open" autofocus={p === first}>
              Open
            </button>
          </form>
        </article>
      ))}
      <h1>Appeals ({(opts.appeals ?? []).length})</h1>
      {(opts.appeals ?? []).length === 0 && <p>No appeal waits for a person.</p>}
      {(opts.appeals ?? []).map((a) => (
        <Appeal a={a} />
      ))}
      <h1>Reports ({opts.reports.length})</h1>
      <table>
        <tbody>
          {opts.reports.map((r) => (
            <tr id={`report-${r.id}`}>
              <td>
                <a href={`/p/${r.post_id}.json`}>{r.post_id}</a>
              </td>
              <td>{r.category}</td>
              <td>{r.detail ?? ''}</td>
              <td>{r.status}</td>
              <td>
                {r.status === 'open' && (
                  <>
                    <PostButton
                      action={`/admin/posts/${r.post_id}/remove`}
                      fields={{ reason: `Removed after report ${r.id} (${r.category}).` }}
                      secondary
                    >
                      Remove post
                    </PostButton>
                    <PostButton
                      action={`/admin/reports/${r.id}/dismiss`}
                      fields={{ reason: 'Read by a person: within the policy.' }}
                      secondary
                      name="dismiss"
                    >
                      Dismiss
                    </PostButton>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Chrome>,
  );
}

/**
 * One item as its reviewer opens it. The keyboard path is three keys: Enter on Open (the queue
 * focuses the first free item), then the category select has the focus, preset to the suspected
 * category: Tab confirms it and moves to Reject, Enter submits. Publish is one click (or Alt+P).
 */
export function reviewItemPage(opts: { actor: Actor; item: ReviewDetail; error?: string }): string {
  const { item, actor } = opts;
  const ev = item.evidence;
  const model = item.model as { reason?: string; source?: string } | null;
  const mine = !item.claim || item.claim.claimed_by === actor.id;
  const h = item.history;
  return renderPage(
    <Chrome actor={actor} title={`Review ${item.id}`}>
      <article class="review-item" id={`item-${item.id}`} data-post-id={item.id}>
        {opts.error && <p class="error">{opts.error}</p>}
        <h1>{item.title ?? '(untitled)'}</h1>
        <p class="muted">
          {item.id} · by {item.author.name} · {item.created_at} · <Claim item={item} actor={actor} />
        </p>
        <p id="suspected">
          Suspected: <strong>{ev.suspected_category ?? 'nothing named'}</strong>
          {model?.reason && (
            <span class="muted">
              {' '}
              ({model.source}: {model.reason})
            </span>
          )}
        </p>
        {ev.quotes.length > 0 && (
          <ul id="quotes">
            {ev.quotes.map((q) => (
              <li>
                <q>{q}</q>
              </li>
            ))}
          </ul>
        )}
        {mine ? (
          <div class="decide">
            <form method="post" action={`/admin/posts/${item.id}/decision`} id="reject-form">
              <input type="hidden" name="decision" value="reject" />
              <label for="reason">Reason (shown to the author)</label>
              <input id="reason" name="reason" required value="Reviewed by a person: breaks the policy." />
              <label for="category">Category</label>
              <select id="category" name="category" required autofocus>
                <option value="" selected={ev.preset_category === null}>
                  — choose —
                </option>
                {DECISION_CATEGORIES.map((c) => (
                  <option value={c} selected={c === ev.preset_category}>
                    {c === 'low_quality' ? 'low_quality (refund, no strike)' : c}
                  </option>
                ))}
              </select>
              <button type="submit" name="reject" id="reject">
                Reject
              </button>
            </form>
            <form method="post" action={`/admin/posts/${item.id}/decision`} id="publish-form">
              <input type="hidden" name="decision" value="publish" />
              <input type="hidden" name="reason" value="Reviewed by a person: within the policy." />
              <button type="submit" name="publish" id="publish" accesskey="p" class="secondary">
                Publish
              </button>
            </form>
          </div>
        ) : (
          <p class="error" id="claimed-elsewhere">
            {item.claim?.claimed_by_label} is reviewing this post until {item.claim?.expires_at}; you cannot
            decide it.
          </p>
        )}
        <section id="text" class="text">
          <h2>Text as shown (untrusted)</h2>
          {ev.paragraphs.map((segments, i) =>
            segments.length === 1 && segments[0]!.text === '' ? null : (
              <p class={ev.flagged_paragraphs.includes(i) ? 'flagged' : undefined} data-paragraph={i}>
                {ev.flagged_paragraphs.includes(i) && <span class="flag">flagged · </span>}
                {segments.map((s) => (s.mark ? <mark>{s.text}</mark> : s.text))}
              </p>
            ),
          )}
        </section>
        <section id="history">
          <h2>The author's history</h2>
          <p>
            Account {h.account_id}: {h.status}, <span id="strikes">{h.strikes}</span> strike
            {h.strikes === 1 ? '' : 's'}; {h.reports.total} report{h.reports.total === 1 ? '' : 's'} on their
            posts.
          </p>
          {h.verdicts.length > 0 && (
            <table id="verdicts">
              <tbody>
                {h.verdicts.map((v) => (
                  <tr>
                    <td>{v.post_id}</td>
                    <td>{v.title ?? '(untitled)'}</td>
                    <td>{v.status}</td>
                    <td>{v.category ?? ''}</td>
                    <td>{v.decided_at ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {h.reports.recent.length > 0 && (
            <ul id="author-reports">
              {h.reports.recent.map((r) => (
                <li>
                  {r.id} on {r.post_id}: {r.category} ({r.status})
                </li>
              ))}
            </ul>
          )}
        </section>
      </article>
    </Chrome>,
  );
}

export function auditPage(opts: {
  actor: Actor;
  entries: AuditView[];
  next: string | null;
  limit: number;
}): string {
  return renderPage(
    <Chrome actor={opts.actor} title="Audit log">
      <h1>Audit log</h1>
      <table id="audit">
        <TableHead columns={['When', 'Who', 'What', 'On', 'Detail']} />
        <tbody>
          {opts.entries.map((e) => (
            <tr data-id={e.id}>
              <td>{e.at}</td>
              <td>{e.actor_label}</td>
              <td>{e.action}</td>
              <td>{e.subject}</td>
              <td>{JSON.stringify(e.detail)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {opts.next && (
        <p>
          <a id="older" href={`/admin/audit?cursor=${encodeURIComponent(opts.next)}&limit=${opts.limit}`}>
            Older entries
          </a>
        </p>
      )}
    </Chrome>,
  );
}

export function staffPage(opts: {
  actor: Actor;
  staff: StaffView[];
  notice?: string;
  error?: string;
}): string {
  return renderPage(
    <Chrome actor={opts.actor} title="Staff">
      <h1>Staff</h1>
      {opts.notice && <p id="notice">{opts.notice}</p>}
      {opts.error && <p class="error">{opts.error}</p>}
      <table id="staff">
        <tbody>
          {opts.staff.map((m) => (
            <tr id={`staff-${m.id}`}>
              <td>{m.name}</td>
              <td>{m.email}</td>
              <td>{m.role}</td>
              <td>{m.disabled_at ? `disabled ${m.disabled_at}` : 'active'}</td>
              <td>
                <PostButton
                  action={`/admin/staff/${m.id}`}
                  fields={{ disabled: m.disabled_at ? 'false' : 'true' }}
                  secondary
                >
                  {m.disabled_at ? 'Enable' : 'Disable'}
                </PostButton>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Invite</h2>
      <form method="post" action="/admin/staff" id="invite">
        <label for="invite-email">E-mail</label>
        <input id="invite-email" name="email" type="email" required />
        <label for="invite-name">Name</label>
        <input id="invite-name" name="name" required />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          <option value="moderator">moderator</option>
          <option value="admin">admin</option>
        </select>
        <button type="submit">Invite</button>
      </form>
    </Chrome>,
  );
}

export function forbiddenPage(actor: Actor, detail: string): string {
  return renderPage(
    <Chrome actor={actor} title="Forbidden">
      <p class="error">{detail}</p>
    </Chrome>,
  );
}
