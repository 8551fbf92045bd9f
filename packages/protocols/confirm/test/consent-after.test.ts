import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createMessageBus } from '@parley/bus';
import { createFakeChannel } from '@parley/testing';
import { type ConfirmDecision, createConfirmGate, DEFAULT_AFTER_DECISION_MS } from '../src/index.js';
import { eventKeyOf, MAX_EVENT_KEY_LENGTH } from '../src/internal/intake.js';
import { ACTION, flush, setup, storeData, storedData } from './helpers.js';

// Issue 18, sections 5 and 6: after the decision, stored records read strictly, and bounds.

describe('after the decision', () => {
  it('[CONSENT-15] absorbs a second 确认 and a redelivered event for a just-decided confirmation; chat still flows', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '确认', { eventId: 'ev_1' });
    await decision;
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect((await h.channel.say('g1', 'alice', '确认', { eventId: 'ev_1' })).status).toBe('intercepted');
    expect(h.events.ignored.map((e) => e.code)).toEqual(['after_decision', 'stale_reply']);
    expect((await h.channel.say('g1', 'alice', 'thanks, what next?')).status).toBe('queued');
    expect((await h.channel.say('g1', 'bob', '确认')).status).toBe('queued'); // bob could not answer it
    h.clock.advance(DEFAULT_AFTER_DECISION_MS);
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('queued');
    expect(h.decided).toHaveLength(1);
  });

  it('[CONSENT-16] never takes a settled record whose delete failed for a pending one after a restart', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    const before = await setup({ store }, { clock, store });
    const { decision } = await before.ask();
    store.fail('delete', { times: 1 });
    clock.advance(1);
    await before.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
    await flush();
    await before.gate.close();
    clock.advance(DEFAULT_AFTER_DECISION_MS);
    const resumed: ConfirmDecision[] = [];
    const after = await before.restart({ resume: { 'sql.delete': (d) => void resumed.push(d) } });
    expect(after.gate.pending()).toEqual([]);
    expect((await after.channel.say('g1', 'alice', 'please also export it')).status).toBe('queued');
    await flush();
    expect(resumed).toEqual([]);
    const left: string[] = [];
    for await (const item of store.inner.list('confirm:pending:')) left.push(item.key);
    expect(left).toEqual([]); // the restarted gate removed it
  });

  it.each([
    ['without approvers', (r: Record<string, unknown>) => ({ ...r, approvers: undefined })],
    ['with approvers as a string', (r: Record<string, unknown>) => ({ ...r, approvers: 'alice bob' })],
    ['with an empty approver id', (r: Record<string, unknown>) => ({ ...r, approvers: [''] })],
    [
      'with a step past its steps',
      (r: Record<string, unknown>) => ({ ...r, steps: [{ prompt: 'p', expect: 'YES' }], step: 3 }),
    ],
  ])(
    '[CONSENT-17] reports a stored record %s as corrupt_record, ignores it and keeps the chat flowing',
    async (_, corrupt) => {
      const before = await setup();
      await before.ask();
      const key = 'confirm:pending:cfm_1';
      const record = await storedData(before.store, key);
      await before.gate.close();
      await storeData(before.store, key, 'pending', corrupt(record));
      const bus = createMessageBus({ clock: before.clock });
      const channel = createFakeChannel({ channel: 'feishu', clock: before.clock });
      await bus.attach(channel);
      const gate = createConfirmGate({ bus, clock: before.clock, store: before.store });
      const errors: unknown[] = [];
      gate.on('error', ({ error }) => errors.push(error));
      await gate.ready;
      expect(errors.some((e) => isParleyError(e, 'corrupt_record'))).toBe(true);
      expect(gate.pending()).toEqual([]);
      expect((await channel.say('g1', 'bob', '确认')).status).toBe('queued');
      expect((await channel.say('g1', 'alice', 'hello')).status).toBe('queued');
    },
  );
});

describe('bounds', () => {
  it('[CONSENT-18] refuses requests past maxPending with too_many_pending, recording nothing', async () => {
    const h = await setup({ maxPending: 3 });
    for (const chat of ['c1', 'c2', 'c3'])
      void h.gate.request({ sessionKey: `feishu:${chat}`, action: ACTION, summary: 's', requester: 'a' });
    const refused = await h.request({ sessionKey: 'feishu:c4', requester: 'a' });
    expect(refused).toMatchObject({ outcome: 'refused', reason: 'too_many_pending' });
    expect(h.gate.pending()).toHaveLength(3);
    expect(await h.gate.authorize(refused, ACTION)).toEqual({ ok: false, code: 'unknown_decision' });
    await expect(setup({ maxPending: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('forgets the oldest decided session past maxPending, so absorption stays bounded', async () => {
    const h = await setup({ maxPending: 1 });
    for (const chat of ['g1', 'g2']) {
      const { decision } = await h.ask({ sessionKey: `feishu:${chat}` });
      h.clock.advance(1);
      await h.channel.say(chat, 'alice', '取消');
      await decision;
    }
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('queued'); // g1 was forgotten
    expect((await h.channel.say('g2', 'alice', '确认')).status).toBe('intercepted');
  });

  it('[CONSENT-19] remembers a long event id by its digest: bounded per id, and still counted once', async () => {
    const long = 'e'.repeat(65_536);
    expect(eventKeyOf('telegram', long).length).toBeLessThanOrEqual(MAX_EVENT_KEY_LENGTH);
    expect(eventKeyOf('telegram', long)).not.toBe(eventKeyOf('telegram', `${long}x`));
    const h = await setup();
    const { decision } = await h.ask();
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '确认', { eventId: long });
    await decision;
    h.clock.advance(DEFAULT_AFTER_DECISION_MS);
    expect((await h.channel.say('g1', 'alice', '确认', { eventId: long })).status).toBe('intercepted');
  });

  it('refuses a generateId that returns an overlong id', async () => {
    const h = await setup({ generateId: () => 'x'.repeat(129) });
    await expect(
      h.gate.request({ sessionKey: 'feishu:g1', action: ACTION, summary: 's', requester: 'a' }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
