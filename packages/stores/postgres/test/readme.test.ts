// The README's first snippet: the code between the #region markers below must be the README's
// code block, and it runs here on PGlite.
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createPostgresStore } from '../src/index.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const SELF = readFileSync(new URL(import.meta.url), 'utf8');

function firstBlock(): string {
  const match = /```ts\n([\s\S]*?)```/.exec(README);
  if (match?.[1] === undefined) throw new Error('No ts block in the README');
  return match[1];
}

function region(name: string): string {
  const start = SELF.indexOf(`// #region ${name}\n`);
  const end = SELF.indexOf('  // #endregion', start);
  const body = SELF.slice(start, end).split('\n').slice(1);
  return body.map((line) => line.replace(/^ {2}/, '')).join('\n');
}

const logged: unknown[][] = [];
beforeEach(() => {
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => logged.push(args));
});
afterEach(() => {
  vi.restoreAllMocks();
});

it('shows, in the README, exactly the code this test runs', () => {
  const imports = [
    "import { PGlite } from '@electric-sql/pglite';",
    "import { createPostgresStore } from '@parley/postgres';",
    '',
  ].join('\n');
  expect(firstBlock()).toBe(`${imports}\n${region('snippet')}`);
});

it('runs the README snippet on PGlite', async () => {
  // #region snippet
  const db = new PGlite(); // or new PGlite('./data') to keep it on disk; or a pg Pool
  const store = createPostgresStore({ db }); // creates its table in schema "parley" on first use

  const version = await store.set('confirm:abc', { state: 'pending' }, { ttlMs: 5 * 60_000 });
  // On any replica: exactly one compare-and-set over `version` wins.
  const won = await store.compareAndSet('confirm:abc', version, { state: 'approved' });
  console.log(won.ok); // true

  const off = store.watch('confirm:', (change) => console.log(change.kind, change.key), {
    onResync: ({ reason }) => console.log(`re-read pending confirmations (${reason})`),
  });

  off();
  await store.close(); // stops the sweep and the listener
  await db.close(); // the database handle is yours
  // #endregion
  expect(logged[0]).toEqual([true]);
});
