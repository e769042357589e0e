import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN_TOKEN, listen, type TestEnv } from './harness.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = 'test-results/screenshots';

/** Debian's Chromium, headless, with the flags this machine needs (no network beyond loopback). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Records the message of every dialog the page opens (alert, confirm) and dismisses it. */
export function recordDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return dialogs;
}

/**
 * The file's env served over loopback HTTP and a Chromium to read it: register it after the hook
 * that starts the env (before all tests it listens and launches; after all, the browser closes
 * before the env does). `browser` and `base` are set once the hooks ran: read them inside tests.
 */
export function chromiumKit(getEnv: () => TestEnv) {
  let browser: Browser | undefined;
  let base = '';
  beforeAll(async () => {
    base = await listen(getEnv());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const started = () => {
    if (!browser) throw new Error('chromiumKit: the browser starts in beforeAll');
    return browser;
  };
  return {
    get browser(): Browser {
      return started();
    },
    /** The app's origin, `http://127.0.0.1:PORT`. */
    get base(): string {
      return base;
    },
    /** A new page whose dialogs are recorded and dismissed. */
    async page(): Promise<{ page: Page; dialogs: string[] }> {
      const page = await started().newPage();
      return { page, dialogs: recordDialogs(page) };
    },
  };
}

/** On /admin: opens the token form (behind the code sign-in, in a <details>) and submits `token`. */
export async function enterToken(page: Page, token = ADMIN_TOKEN): Promise<void> {
  await page.click('summary');
  await page.fill('#token', token);
  await page.click('#token-sign-in button[type=submit]');
}
