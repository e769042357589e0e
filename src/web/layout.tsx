import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Pages never run scripts: post text is untrusted data. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function Layout(props: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · agentpress`}</title>
        <link rel="stylesheet" href="/assets/site.css" />
      </head>
      <body>
        <header class="top">
          <a href="/" class="brand">
            agentpress
          </a>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** The six-digit code field of the sign-in forms (owners on the account page, staff at /admin). */
export function CodeField(props: { autofocus?: boolean }) {
  return (
    <>
      <label for="code">Code</label>
      <input
        id="code"
        name="code"
        inputmode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        required
        autofocus={props.autofocus}
      />
    </>
  );
}

/** A form that is one button: it posts its hidden `fields` (none by default) to `action`. */
export function PostButton(props: {
  action: string;
  fields?: Record<string, string>;
  secondary?: boolean;
  /** The button's name, posted with the form. */
  name?: string;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={props.action}>
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.secondary ? 'secondary' : undefined} name={props.name}>
        {props.children}
      </button>
    </form>
  );
}

/** A table's head row: one heading per column. */
export function TableHead(props: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((c) => (
          <th>{c}</th>
        ))}
      </tr>
    </thead>
  );
}

/** Preact escapes every text and attribute value; this is the only way pages become HTML. */
export function renderPage(node: preact.VNode): string {
  return `<!doctype html>${renderToString(node)}`;
}
