import { describe, expect, it } from 'vitest';
import { gateOn, memory, putPending, serve } from './helpers.js';

interface Pending {
  items: Record<string, unknown>[];
  refused: { key: string; message: string }[];
  next?: string;
}

describe('/confirmations (waiting for a person)', () => {
  it('shows a gate’s pending confirmation: chat, requester, approvers, action and digest, prompt, time left', async () => {
    const { clock, store } = memory();
    const { gate, ask } = await gateOn(store, clock);
    void ask('Delete the 3 cancelled orders');
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(60_000);
    const { get, json } = await serve({ store, clock });
    const view = await json<Pending>('/confirmations');
    expect(view.items).toMatchObject([
      {
        id: 'cfm_1',
        sessionKey: 'feishu:g1',
        requester: 'alice',
        approvers: 'requester',
        actionName: 'sql.delete',
        summary: 'Delete the 3 cancelled orders',
        step: '1 of 1',
        timeLeftMs: 240_000,
      },
    ]);
    expect(view.items[0]?.actionDigest).toMatch(/^[0-9a-f]{64}$/);
    const html = (await get('/confirmations')).text;
    expect(html).toContain('Delete the 3 cancelled orders');
    expect(html).toContain('4 min 0 s');
    await gate.close();
  });

  it('drops a confirmation from the waiting list once it is answered, and lists it as settled with who decided', async () => {
    const { clock, store } = memory();
    const { gate, channel, ask } = await gateOn(store, clock);
    const { decision } = await ask('Delete the 3 cancelled orders');
    const { json, get } = await serve({ store, clock });
    expect((await json<Pending>('/confirmations')).items).toHaveLength(1);
    await channel.say('g1', 'alice', '确认');
    await decision;
    expect((await json<Pending>('/confirmations')).items).toEqual([]);
    expect((await json<Pending>('/confirmations/settled')).items).toMatchObject([
      { id: 'cfm_1', outcome: 'confirmed', reason: 'reply', decidedBy: 'alice', reply: '确认', used: false },
    ]);
    expect((await get('/confirmations/settled')).text).toContain('confirmed (reply)');
    await gate.close();
  });

  it('shows a confirmation past its deadline as expired', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1' });
    clock.advance(301_000);
    const { get } = await serve({ store, clock });
    expect((await get('/confirmations')).text).toContain('expired');
  });

  it('hides the action’s arguments unless reveal.args', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', args: { password: 'hunter2' } });
    const hidden = await serve({ store, clock });
    expect((await hidden.get('/confirmations')).text).not.toContain('hunter2');
    expect(JSON.stringify(await hidden.json('/confirmations'))).not.toContain('hunter2');
    const shown = await serve({ store, clock, reveal: { args: true } });
    expect((await shown.get('/confirmations')).text).toContain('hunter2');
  });

  it('lists a record it cannot read as refused, never as a confirmation', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1' });
    await store.set('confirm:pending:c2', { kind: 'parley.confirm.pending', version: 1, data: {} });
    await store.set('confirm:pending:c3', {
      kind: 'parley.confirm.pending',
      version: 2,
      data: { id: 3 },
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const { json, get } = await serve({ store, clock });
    const view = await json<Pending>('/confirmations');
    expect(view.items.map((i) => i.id)).toEqual(['c1']);
    expect(view.refused.map((r) => r.key)).toEqual(['confirm:pending:c2', 'confirm:pending:c3']);
    expect((await get('/confirmations')).text).toContain('Records that cannot be read');
  });

  it('reads the gate’s keyPrefix when told (confirmKeyPrefix)', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1' });
    const { json } = await serve({ store, clock, confirmKeyPrefix: 'other:' });
    expect((await json<Pending>('/confirmations')).items).toEqual([]);
  });
});

describe('what a confirmation shows in its states', () => {
  it('shows the step prompt of an exact multi-step confirmation, a list of approvers and an undelivered prompt', async () => {
    const { clock, store } = memory();
    const { gate } = await gateOn(store, clock);
    void gate.request({
      sessionKey: 'feishu:g1',
      action: { name: 'drop.table', args: {} },
      summary: 'Drop the table',
      requester: 'alice',
      approvers: ['bob', 'carol'],
      steps: [
        { prompt: 'Type YES to drop it', expect: 'YES' },
        { prompt: 'Type YES again', expect: 'YES' },
      ],
    });
    await new Promise((resolve) => gate.on('prompted', resolve));
    const { json, get } = await serve({ store, clock });
    expect((await json<Pending>('/confirmations')).items).toMatchObject([
      { approvers: 'bob, carol', stepPrompt: 'Type YES to drop it', step: '1 of 2' },
    ]);
    expect((await get('/confirmations')).text).toContain('Type YES to drop it');
    await gate.close();
  });

  it('shows hours left for a long confirmation', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', timeoutMs: 2 * 3_600_000 + 5 * 60_000 });
    const { get } = await serve({ store, clock });
    expect((await get('/confirmations')).text).toContain('2 h 5 min');
  });

  it('says a prompt is not yet delivered while its send is in flight', async () => {
    const { clock, store } = memory();
    await putPending(store, clock, { id: 'c1', delivered: false });
    const { get } = await serve({ store, clock });
    expect((await get('/confirmations')).text).toContain('not yet delivered');
  });

  it('lists a cancelled confirmation as settled, with the reply that cancelled it', async () => {
    const { clock, store } = memory();
    const { gate, channel, ask } = await gateOn(store, clock);
    const { decision } = await ask('Delete the orders');
    await channel.say('g1', 'alice', '取消');
    await decision;
    const { json, get } = await serve({ store, clock });
    expect((await json<Pending>('/confirmations/settled')).items).toMatchObject([
      { outcome: 'cancelled', decidedBy: 'alice', reply: '取消' },
    ]);
    expect((await get('/confirmations/settled')).text).toContain('<tr class="failed">');
    await gate.close();
  });

  it('says so when nothing waits and nothing is settled', async () => {
    const { clock, store } = memory();
    const { get } = await serve({ store, clock });
    expect((await get('/confirmations')).text).toContain('Nothing is waiting for a person.');
    expect((await get('/confirmations/settled')).text).toContain('No settled confirmation is kept.');
  });
});
