// One page of the console over a store holding 1,000 and 100,000 records (issue 35): a page is one
// pass over `store.list(prefix)` keeping at most pageSize + 1 entries, so its time grows with the
// records under the prefix (about 100× for 100× the records) and its memory does not. Each case
// answers GET /confirmations?format=json through the handler (no socket), the first page and a
// page from a cursor in the middle.
import { createConfirmation } from '@parley/confirm';
import { type ConsoleResponse, createConsole } from '@parley/console';
import { createManualClock, createMemoryStore, type JsonValue } from '@parley/core';
import { suite } from '../lib.js';

const NOW = 1_700_000_000_000;

/** A memory store with `n` pending confirmations as a gate stores them, and the console's handler over it. */
const pageOver = (n: number, from: 'first' | 'middle') => async () => {
  const clock = createManualClock({ now: NOW });
  const store = createMemoryStore({ clock });
  const { record } = createConfirmation(
    {
      sessionKey: 'feishu:g1',
      action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders' } },
      summary: 'Delete the orders',
      requester: 'alice',
    },
    { id: 'c0', now: NOW },
  );
  for (let i = 0; i < n; i++) {
    const id = `c${String(i).padStart(6, '0')}`;
    const data = { ...record, id, promptedAt: NOW, firstPromptedAt: NOW, expiresAt: NOW + 300_000 };
    const value = {
      kind: 'parley.confirm.pending',
      version: 2,
      data,
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set(`confirm:pending:${id}`, value as unknown as JsonValue);
  }
  const handler = createConsole({ store, clock, refreshSeconds: 0 });
  const after = from === 'middle' ? `&after=confirm:pending:c${String(n / 2).padStart(6, '0')}` : '';
  const url = `/confirmations?format=json${after}`;
  return async () => {
    let body = '';
    const res: ConsoleResponse = {
      statusCode: 0,
      setHeader: () => res,
      end: (text?: string) => {
        body = text ?? '';
        return res;
      },
    };
    await handler({ method: 'GET', url, headers: {} }, res);
    if (res.statusCode !== 200 || !body.includes('"next"')) throw new Error('the page was not served');
    return body.length;
  };
};

suite('console: one page (50 rows) of pending confirmations, 100× the records', {
  cases: {
    'first page, 1,000 records': pageOver(1_000, 'first'),
    'first page, 100,000 records': pageOver(100_000, 'first'),
    'middle page, 100,000 records': pageOver(100_000, 'middle'),
  },
  goals: [{ case: 'first page, 100,000 records', vs: 'first page, 1,000 records', slowerByAtMost: 150 }],
});
