import { CLAIM_RECORDS, createKernel } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE } from '../src/index.js';
import { memory, putPending, serve } from './helpers.js';

interface Page {
  items: { id: string }[];
  next?: string;
}

describe('paged listings', () => {
  it('lists every record exactly once, in key order, a page at a time', async () => {
    const { clock, store } = memory();
    const ids = Array.from({ length: 23 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    for (const id of [...ids].reverse()) await putPending(store, clock, { id });
    const { json, get } = await serve({ store, clock, pageSize: 10 });
    const seen: string[] = [];
    let path = '/confirmations';
    const cursors: string[] = [];
    for (let page = 0; page < 5; page++) {
      const view = await json<Page>(path);
      seen.push(...view.items.map((i) => i.id));
      if (view.next === undefined) break;
      cursors.push(view.next);
      path = `/confirmations?after=${encodeURIComponent(view.next)}`;
    }
    expect(seen).toEqual(ids);
    expect(cursors).toEqual(['confirm:pending:c09', 'confirm:pending:c19']);
    const html = (await get('/confirmations')).text;
    expect(html).toContain('href="/confirmations?after=confirm%3Apending%3Ac09"');
  });

  it('shows DEFAULT_PAGE_SIZE rows by default and no next link on the last page', async () => {
    const { clock, store } = memory();
    for (let i = 0; i < DEFAULT_PAGE_SIZE + 3; i++) await putPending(store, clock, { id: `c${1000 + i}` });
    const { json, get } = await serve({ store, clock });
    const first = await json<Page>('/confirmations');
    expect(first.items).toHaveLength(DEFAULT_PAGE_SIZE);
    const last = await json<Page>(`/confirmations?after=${first.next}`);
    expect(last.items.map((i) => i.id)).toEqual([0, 1, 2].map((i) => `c${1000 + DEFAULT_PAGE_SIZE + i}`));
    expect(last.next).toBeUndefined();
    expect((await get(`/confirmations?after=${first.next}`)).text).not.toContain('Next page');
  });

  it('pages unknown outcomes across several claim prefixes, merged in key order', async () => {
    const { clock, store } = memory();
    const kernel = createKernel({ store, clock, owner: 'worker-a' });
    for (const key of ['b:3', 'a:1', 'b:2', 'a:4', 'c:9']) {
      await kernel.claim(key, { id: `effect-${key}`, digest: 'd', leaseMs: 1_000 });
    }
    clock.advance(2_000);
    const { json } = await serve({ store, clock, pageSize: 2, claimKeyPrefixes: ['a:', 'b:', 'a:'] });
    const keys: string[] = [];
    let path = '/unknown';
    for (let page = 0; page < 4; page++) {
      const view = await json<{ items: { key: string }[]; next?: string }>(path);
      keys.push(...view.items.map((i) => i.key));
      if (view.next === undefined) break;
      path = `/unknown?after=${encodeURIComponent(view.next)}`;
    }
    expect(keys).toEqual(['a:1', 'a:4', 'b:2', 'b:3']);
    expect(CLAIM_RECORDS.kind).toBe('parley.kernel.claim');
  });
});
