import { createKernel } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { CONFIRMATION_RECORD, DECISION_RECORD } from '../src/index.js';
import { ACTION, setup } from './helpers.js';

describe('CONFIRMATION_RECORD and DECISION_RECORD (reading a gate’s records without a gate)', () => {
  it('lists a waiting confirmation, then its decision once answered', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    const kernel = createKernel({ store: h.store, clock: h.clock });
    const pending = await kernel.list('confirm:pending:', CONFIRMATION_RECORD);
    expect(pending.records.map((r) => [r.key, r.value.requester, r.value.action.name])).toEqual([
      ['confirm:pending:cfm_1', 'alice', ACTION.name],
    ]);
    await h.channel.say('g1', 'alice', '确认');
    await decision;
    expect((await kernel.list('confirm:pending:', CONFIRMATION_RECORD)).records).toEqual([]);
    const settled = await kernel.read('confirm:decision:cfm_1', DECISION_RECORD);
    expect(settled?.value).toMatchObject({
      outcome: 'confirmed',
      decidedBy: 'alice',
      summary: ACTION.args.sql,
    });
    await h.gate.close();
  });

  it('refuses a record that fails the strict check', async () => {
    const h = await setup();
    await h.store.set('confirm:pending:x', {
      kind: 'parley.confirm.pending',
      version: 2,
      data: { id: 'x' },
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const found = await createKernel({ store: h.store }).list('confirm:pending:', CONFIRMATION_RECORD);
    expect(found.refused.map((r) => r.code)).toEqual(['corrupt_record']);
    await h.gate.close();
  });
});
