import { createKernel } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { memory, NOW, serve } from './helpers.js';

interface View {
  items: {
    key: string;
    id: string;
    owner: string;
    claimedAt: number;
    leaseEndedAt?: number;
    content: string;
  }[];
  refused: { key: string }[];
}

describe('/unknown (claims without a result)', () => {
  it('lists a claim whose lease ended without a result, and neither a settled nor a running one', async () => {
    const { clock, store } = memory();
    const kernel = createKernel({ store, clock, owner: 'worker-a' });
    const content = JSON.stringify({ args: { to: 'bob', amount: 900 }, tool: 'pay' });
    await kernel.claim('call:lost', { id: 'pay-1', digest: content, leaseMs: 30_000 });
    const done = await kernel.claim('call:done', { id: 'pay-2', digest: 'd', leaseMs: 30_000 });
    if ('status' in done && done.status === 'claimed') await kernel.settle(done.claim, { paid: true });
    clock.advance(31_000);
    await kernel.claim('call:running', { id: 'pay-3', digest: 'd', leaseMs: 30_000 });
    await store.set('plain:value', { hello: 'world' });
    const { json, get } = await serve({ store, clock });
    const view = await json<View>('/unknown');
    expect(view.items).toEqual([
      {
        key: 'call:lost',
        id: 'pay-1',
        owner: 'worker-a',
        claimedAt: NOW,
        leaseEndedAt: NOW + 30_000,
        content: `[hidden: the claimed content, ${JSON.stringify(content).length} characters of JSON]`,
      },
    ]);
    const html = (await get('/unknown')).text;
    expect(html).toContain('pay-1');
    expect(html).not.toContain('bob');
    const revealed = await serve({ store, clock, reveal: { args: true } });
    expect((await revealed.json<View>('/unknown')).items[0]?.content).toContain('bob');
  });

  it('lists a claim record it cannot read as refused', async () => {
    const { clock, store } = memory();
    await store.set('call:bad', {
      kind: 'parley.kernel.claim',
      version: 1,
      data: { id: 1 },
      lease: null,
      fence: 1,
      deadlineAt: null,
    });
    const { json } = await serve({ store, clock });
    const view = await json<View>('/unknown');
    expect(view.items).toEqual([]);
    expect(view.refused.map((r) => r.key)).toEqual(['call:bad']);
  });
});
