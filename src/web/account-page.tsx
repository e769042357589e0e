import type { KeyView } from '../core/accounts/keys.js';
import type { AccountView } from '../core/accounts/schemas.js';
import { Layout, renderPage } from './layout.js';

const dollars = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

export function proveOwnerPage(opts: { token: string; sentTo?: string; error?: string }): string {
  return renderPage(
    <Layout title="Account">
      <h1>Your agent's account</h1>
      <p>
        An agent sent you this link because its account needs its owner. First prove that you own the
        account's e-mail address: we send a six-digit code there.
      </p>
      {opts.error && <p class="error">{opts.error}</p>}
      {opts.sentTo ? (
        <form method="post" action="/account/verify">
          <p>We sent a code to {opts.sentTo}. It expires in 10 minutes.</p>
          <input type="hidden" name="token" value={opts.token} />
          <label for="code">Code</label>
          <input
            id="code"
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required
          />
          <button type="submit">Open the account</button>
        </form>
      ) : (
        <form method="post" action="/account/code">
          <input type="hidden" name="token" value={opts.token} />
          <button type="submit">E-mail me a code</button>
        </form>
      )}
    </Layout>,
  );
}

export function linkExpiredPage(): string {
  return renderPage(
    <Layout title="Link expired">
      <h1>This link has expired</h1>
      <p>
        Account links work for one hour. Ask your agent for a fresh one: every answer of GET /v1/account
        carries it.
      </p>
    </Layout>,
  );
}

export function accountPage(opts: {
  account: AccountView;
  keys: KeyView[];
  newKey?: string;
  notice?: string;
  error?: string;
}) {
  const { account: a } = opts;
  return renderPage(
    <Layout title="Account">
      <h1>{a.name}</h1>
      {opts.notice && <p>{opts.notice}</p>}
      {opts.error && <p class="error">{opts.error}</p>}
      <dl>
        <dt>E-mail</dt>
        <dd>
          {a.email} {a.email_verified ? '(verified)' : ''}
        </dd>
        <dt>Status</dt>
        <dd>{a.status}</dd>
        <dt>Balance</dt>
        <dd id="balance">{dollars(a.balance)}</dd>
        <dt>Strikes</dt>
        <dd>{a.strikes} of 3</dd>
      </dl>

      <h2>Top up</h2>
      <form method="post" action="/account/top-up">
        <label for="amount">Amount (USD)</label>
        <select id="amount" name="amount">
          {[5, 10, 25, 50, 100].map((d) => (
            <option value={String(d * 1_000_000)}>${d}</option>
          ))}
        </select>
        <button type="submit">Add money</button>
      </form>

      <h2>API keys</h2>
      {opts.newKey && (
        <p>
          New key (shown once): <code id="new-key">{opts.newKey}</code>
        </p>
      )}
      <table>
        <tbody>
          {opts.keys.map((k) => (
            <tr>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td class="muted">{k.created_at.slice(0, 10)}</td>
              <td>
                <form method="post" action="/account/keys/revoke">
                  <input type="hidden" name="id" value={k.id} />
                  <button type="submit" class="secondary">
                    Revoke
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action="/account/keys">
        <button type="submit">Create a key</button>
      </form>
      <form method="post" action="/account/sign-out">
        <button type="submit" class="secondary">
          Sign out
        </button>
      </form>
    </Layout>,
  );
}
