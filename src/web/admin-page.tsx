import type { ReviewItem } from '../core/moderation/staff.js';
import { POLICY } from '../core/policy/document.js';
import { paragraphs } from '../core/posts/text.js';
import { Layout, renderPage } from './layout.js';

export interface ReportRow {
  id: string;
  post_id: string;
  category: string;
  detail: string | null;
  status: string;
  created_at: string;
}

export function adminSignInPage(error?: string): string {
  return renderPage(
    <Layout title="Staff sign-in">
      <h1>Staff console</h1>
      {error && <p class="error">{error}</p>}
      <form method="post" action="/admin/sign-in">
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" required />
        <button type="submit">Sign in</button>
      </form>
    </Layout>,
  );
}

const CATEGORIES = ['low_quality', ...POLICY.abuse.map((c) => c.id)];

function Signals({ item }: { item: ReviewItem }) {
  const signals = ((item.prefilter?.signals as { id: string; detail: string }[] | undefined) ?? []).slice(
    0,
    8,
  );
  const model = item.model as {
    reason?: string;
    source?: string;
    category?: string;
    details?: { triage?: { id: string; detail: string; paragraph: number; excerpt: string }[] };
  } | null;
  const triage = model?.details?.triage ?? [];
  return (
    <div class="muted">
      {model?.reason && (
        <p>
          Model ({model.source}): {model.reason}
        </p>
      )}
      {triage.length > 0 && (
        <ul class="triage">
          {triage.map((t) => (
            <li>
              {t.id}: {t.detail}; paragraph {t.paragraph + 1}: <q>{t.excerpt}</q>
            </li>
          ))}
        </ul>
      )}
      {signals.length > 0 && (
        <ul>
          {signals.map((s) => (
            <li>
              {s.id}: {s.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function adminPage(opts: {
  review: ReviewItem[];
  reports: ReportRow[];
  notice?: string;
  error?: string;
}): string {
  return renderPage(
    <Layout title="Staff console">
      <form method="post" action="/admin/sign-out" class="sign-out">
        <button type="submit">Sign out</button>
      </form>
      <h1>Review queue ({opts.review.length})</h1>
      {opts.notice && <p id="notice">{opts.notice}</p>}
      {opts.error && <p class="error">{opts.error}</p>}
      {opts.review.length === 0 && <p>Nothing waits for a person.</p>}
      {opts.review.map((p) => (
        <article class="review" id={`post-${p.id}`} data-post-id={p.id}>
          <h2>{p.title ?? '(untitled)'}</h2>
          <p class="muted">
            {p.id} · by {p.author.name} · {p.created_at}
          </p>
          <Signals item={p} />
          <details>
            <summary>Text (untrusted)</summary>
            {paragraphs(p.body).map((para) => (
              <p>{para}</p>
            ))}
          </details>
          <form method="post" action={`/admin/posts/${p.id}/decision`}>
            <input type="hidden" name="decision" value="publish" />
            <input type="hidden" name="reason" value="Reviewed by a person: within the policy." />
            <button type="submit" name="publish">
              Publish
            </button>
          </form>
          <form method="post" action={`/admin/posts/${p.id}/decision`}>
            <input type="hidden" name="decision" value="reject" />
            <label for={`cat-${p.id}`}>Category</label>
            <select id={`cat-${p.id}`} name="category">
              {CATEGORIES.map((c) => (
                <option value={c}>{c}</option>
              ))}
            </select>
            <label for={`reason-${p.id}`}>Reason</label>
            <input id={`reason-${p.id}`} name="reason" required />
            <button type="submit" name="reject" class="secondary">
              Reject
            </button>
          </form>
        </article>
      ))}
      <h1>Reports ({opts.reports.length})</h1>
      <table>
        <tbody>
          {opts.reports.map((r) => (
            <tr>
              <td>
                <a href={`/p/${r.post_id}.json`}>{r.post_id}</a>
              </td>
              <td>{r.category}</td>
              <td>{r.detail ?? ''}</td>
              <td>
                <form method="post" action={`/admin/posts/${r.post_id}/remove`}>
                  <input
                    type="hidden"
                    name="reason"
                    value={`Removed after report ${r.id} (${r.category}).`}
                  />
                  <button type="submit" class="secondary">
                    Remove post
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>,
  );
}
