// Headless Chromium from the system (Debian's `chromium` package) driven by puppeteer-core: the
// browser a person would use, launched once per test file. No Chromium is a failure that says how
// to install it, never a skipped test.
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The console's browser tests need Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) ` +
        'or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  }
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** A fresh page that records every dialog (alert, confirm, prompt) a script would open. */
export async function openPage(browser: Browser): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { page, dialogs };
}

/** The rows of the page's first table: each row's cell texts and class. */
export function rowsOf(page: Page): Promise<{ cells: string[]; className: string }[]> {
  return page.$$eval('tbody tr', (rows) =>
    rows.map((row) => ({
      cells: Array.from(row.querySelectorAll('td'), (cell) => cell.textContent ?? ''),
      className: row.className,
    })),
  );
}
