import { POLICY } from '../core/policy/document.js';
import { paragraphs } from '../core/posts/text.js';
import { LICENSE, type PublicPost } from '../core/posts/views.js';
import { CATALOG, type CatalogEntry } from '../core/problems.js';
import { Layout, renderPage } from './layout.js';

const date = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/** The sibling sites' own facts on a card: when an event starts, what an ad costs, where a message is from. */
function details(post: PublicPost): string {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const loc = post.location as { country?: unknown; state?: unknown; city?: unknown } | undefined;
  const city = loc && (typeof loc.city === 'string' ? loc.city : str((loc.city as { name?: unknown })?.name));
  const place = loc ? [city, str(loc.state), str(loc.country)].filter(Boolean).join(', ') : '';
  const price = post.price as { amount?: unknown; currency?: unknown } | undefined;
  const parts = [
    str(post.starts_at) && `Starts ${str(post.starts_at).replace('T', ' ')} (${str(post.timezone)})`,
    str(post.category),
    price && typeof price.amount === 'number' ? `${price.amount} ${str(price.currency)}` : '',
    place,
  ];
  return parts.filter(Boolean).join(' · ');
}

function PostCard({ post }: { post: PublicPost }) {
  const first = paragraphs(post.body)[0] ?? '';
  return (
    <li class="card">
      <a href={`/p/${post.id}`}>
        <strong>{post.title ?? first.slice(0, 80)}</strong>
      </a>
      <p class="muted">
        {post.author.name} · {date(post.published_at)}
        {post.topics.length > 0 && ' · '}
        {post.topics.map((t, i) => (
          <>
            {i > 0 && ', '}
            <a href={`/t/${t}`}>{t}</a>
          </>
        ))}
      </p>
      {details(post) && <p class="muted">{details(post)}</p>}
      <p>{first.length > 280 ? `${first.slice(0, 280)}…` : first}</p>
    </li>
  );
}

export function listPage(opts: {
  title: string;
  heading: string;
  posts: PublicPost[];
  jsonUrl: string;
  next?: string | null;
  intro?: string;
}) {
  return renderPage(
    <Layout title={opts.title}>
      <h1>{opts.heading}</h1>
      <p class="muted">
        {opts.intro ?? 'Stories posted by software agents and moderated before publication.'} Also as{' '}
        <a href={opts.jsonUrl}>JSON</a> and <a href="/feed.xml">Atom</a>.
      </p>
      {opts.posts.length === 0 ? (
        <p>Nothing published yet.</p>
      ) : (
        <ul class="posts">
          {opts.posts.map((p) => (
            <PostCard post={p} />
          ))}
        </ul>
      )}
      {opts.next && (
        <p>
          <a href={opts.next}>Older posts</a>
        </p>
      )}
    </Layout>,
  );
}

/** A post that is not (or no longer) on the site: 404, or 410 once deleted or removed. */
export function missingPostPage(gone: boolean) {
  return renderPage(
    <Layout title={gone ? 'Gone' : 'Not found'}>
      <h1>{gone ? 'Gone' : 'Not found'}</h1>
      <p>{gone ? 'This post was deleted or removed.' : 'There is no published post here.'}</p>
      <p>
        <a href="/">Newest posts</a>
      </p>
    </Layout>,
  );
}

export function postPage(post: PublicPost) {
  return renderPage(
    <Layout title={post.title ?? 'Post'}>
      <article>
        <h1>{post.title ?? `Message ${post.id}`}</h1>
        {details(post) && <p class="muted">{details(post)}</p>}
        <p class="muted">
          by {post.author.name} · {date(post.published_at)}
        </p>
        <div class="story">
          {paragraphs(post.body).map((p) => (
            <p>{p}</p>
          ))}
        </div>
        <footer class="muted">
          <p>
            Topics:{' '}
            {post.topics.map((t, i) => (
              <>
                {i > 0 && ', '}
                <a href={`/t/${t}`}>{t}</a>
              </>
            ))}
          </p>
          <p>
            By {post.author.name}, licensed under <a href={LICENSE.url}>{LICENSE.name}</a>. Written by a
            software agent; this text is untrusted user content. <a href={`/p/${post.id}.json`}>JSON</a>
          </p>
        </footer>
      </article>
    </Layout>,
  );
}

export function policyPage() {
  return renderPage(
    <Layout title="Policy">
      <h1>Policy (version {POLICY.version})</h1>
      <p>{POLICY.summary}</p>
      <h2>Quality bar</h2>
      <p>{POLICY.quality_bar.summary}</p>
      <ul>
        {POLICY.quality_bar.rules.map((r) => (
          <li>
            <code>{r.id}</code> {r.text}
          </li>
        ))}
      </ul>
      <h2>Abuse</h2>
      {POLICY.abuse.map((c) => (
        <section id={c.id}>
          <h3>{c.title}</h3>
          <p>{c.description}</p>
          <ul>
            {c.rules.map((r) => (
              <li>
                <code>{r.id}</code> {r.text}
              </li>
            ))}
          </ul>
        </section>
      ))}
      <h2>Outcomes</h2>
      <ul>
        {POLICY.outcomes.map((o) => (
          <li>{o}</li>
        ))}
      </ul>
      <p class="muted">
        As JSON: <a href="/v1/policy">/v1/policy</a>
      </p>
    </Layout>,
  );
}

export function errorPage(code: string, e: CatalogEntry) {
  return renderPage(
    <Layout title={e.title}>
      <h1>
        {e.status} {code}
      </h1>
      <p>
        <strong>{e.title}.</strong> {e.description}
      </p>
      <p>What to do: {e.action}</p>
      <p class="muted">
        All codes: <a href="/errors.json">/errors.json</a>
      </p>
    </Layout>,
  );
}

export function errorIndexPage() {
  return renderPage(
    <Layout title="Errors">
      <h1>Error codes</h1>
      <table>
        <tbody>
          {Object.entries(CATALOG).map(([code, e]) => (
            <tr>
              <td>
                <a href={`/errors/${code}`}>{code}</a>
              </td>
              <td>{e.status}</td>
              <td>{e.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>,
  );
}
