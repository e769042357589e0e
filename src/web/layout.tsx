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

/** Preact escapes every text and attribute value; this is the only way pages become HTML. */
export function renderPage(node: preact.VNode): string {
  return `<!doctype html>${renderToString(node)}`;
}
