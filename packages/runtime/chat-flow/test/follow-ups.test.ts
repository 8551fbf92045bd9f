// Durable follow-ups: stored with an absolute due time, sent on the clock when due (not before),
// re-armed by a restarted process (at once when overdue), never sent twice once marked, and every
// refusal as data.
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createFollowUps,
  DEFAULT_SEND_LEASE_MS,
  type FollowUp,
  type FollowUps,
  type FollowUpsEvents,
  type FollowUpsOptions,
} from '../src/index.js';
import { patchFollowUp, storedFollowUp } from './follow-up-helpers.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 3, 15, 9);

function rig(overrides: Partial<FollowUpsOptions<string>> = {}) {
  const clock = createManualClock({ now: START });
  const store = createMemoryStore({ clock });
  const sent: FollowUp<string>[] = [];
  const open = (more: Partial<FollowUpsOptions<string>> = {}): FollowUps<string> =>
    createFollowUps<string>({ store, clock, send: (f) => void sent.push(f), ...overrides, ...more });
  return { clock, store, sent, open };
}

function recordEvents(followUps: FollowUps<string>) {
  const seen: { event: string; payload: FollowUpsEvents[keyof FollowUpsEvents] }[] = [];
  for (const event of ['scheduled', 'sent', 'failed'] as const) {
    followUps.on(event, (payload) => seen.push({ event, payload }));
  }
  return seen;
}

async function advance(clock: ManualClock, followUps: FollowUps<string>, ms: number): Promise<void> {
  clock.advance(ms);
  await followUps.settled();
}

describe('createFollowUps', () => {
  it('stores the follow-up with an absolute due time and sends it when due, not before', async () => {
    const { clock, store, sent, open } = rig();
    const followUps = open();
    const events = recordEvents(followUps);
    const scheduled = await followUps.schedule('sess_1', START + 7 * DAY, 'check');
    expect(scheduled).toMatchObject({ ok: true, followUp: { dueAt: START + 7 * DAY, sentAt: null } });
    expect(await storedFollowUp(store, 'follow-up:sess_1')).toMatchObject({
      kind: 'parley.follow-up',
      payload: 'check',
    });
    expect(followUps.armed).toBe(1);
    await advance(clock, followUps, 7 * DAY - 1);
    expect(sent).toEqual([]);
    await advance(clock, followUps, 1);
    expect(sent.map((f) => f.payload)).toEqual(['check']);
    expect((await followUps.get('sess_1'))?.sentAt).toBe(START + 7 * DAY);
    expect(events.map((e) => e.event)).toEqual(['scheduled', 'sent']);
    expect(followUps.armed).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('is armed again by a restarted process and sent once', async () => {
    const { clock, sent, open } = rig();
    const first = open();
    await first.schedule('sess_1', START + 7 * DAY, 'check');
    clock.advance(2 * DAY);
    first.close(); // the process goes away with its timer
    expect(clock.pendingTimers()).toBe(0);
    const second = open();
    expect((await second.arm('sess_1')).ok).toBe(true);
    await advance(clock, second, 5 * DAY);
    expect(sent).toHaveLength(1);
    second.close();
    const third = open();
    expect(await third.arm('sess_1')).toMatchObject({ ok: false, code: 'already_sent' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('sends at once when armed after the due time passed while nobody ran', async () => {
    const { clock, sent, open } = rig();
    const first = open();
    await first.schedule('sess_1', START + DAY, 'check');
    first.close();
    clock.advance(10 * DAY);
    const second = open();
    await second.arm('sess_1');
    await advance(clock, second, 0);
    expect(sent).toHaveLength(1);
    expect((await second.get('sess_1'))?.sentAt).toBe(START + 10 * DAY);
  });

  it('keeps one timer when a follow-up is armed twice', async () => {
    const { clock, sent, open } = rig();
    const followUps = open();
    await followUps.schedule('sess_1', START + DAY, 'check');
    await followUps.arm('sess_1');
    expect([followUps.armed, clock.pendingTimers()]).toEqual([1, 1]);
    await advance(clock, followUps, DAY);
    expect(sent).toHaveLength(1);
  });

  it('refuses a second schedule of the same id, an unknown id and a corrupt record', async () => {
    const { store, open } = rig();
    const followUps = open();
    await followUps.schedule('sess_1', START + DAY, 'check');
    expect(await followUps.schedule('sess_1', START + 2 * DAY, 'again')).toMatchObject({
      ok: false,
      code: 'exists',
    });
    expect(await followUps.arm('sess_404')).toMatchObject({ ok: false, code: 'not_found' });
    await store.set('follow-up:sess_2', { kind: 'parley.follow-up', id: 'sess_2', dueAt: 'soon' });
    expect(await followUps.arm('sess_2')).toMatchObject({ ok: false, code: 'corrupt_record' });
    await store.set('follow-up:sess_3', {
      kind: 'parley.follow-up',
      id: 'sess_1',
      dueAt: 1,
      createdAt: 1,
      sentAt: null,
      payload: 'x',
    });
    expect(await followUps.arm('sess_3')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await followUps.get('sess_2')).toBeUndefined();
  });

  it('refuses to arm more than maxArmed timers and keeps the extra one stored', async () => {
    const { clock, open } = rig({ maxArmed: 1 });
    const followUps = open();
    await followUps.schedule('a', START + DAY, 'a');
    expect(await followUps.schedule('b', START + DAY, 'b')).toMatchObject({ ok: false, code: 'too_many' });
    expect(await followUps.get('b')).toMatchObject({ sentAt: null });
    expect(clock.pendingTimers()).toBe(1);
  });

  it('throws invalid_argument for a maxArmed that is not a positive integer', () => {
    const { open } = rig();
    for (const maxArmed of [0, -1, 1.5, Number.NaN]) {
      expect(() => open({ maxArmed })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });

  it('refuses everything once closed', async () => {
    const { open } = rig();
    const followUps = open();
    await followUps.schedule('a', START + DAY, 'a');
    followUps.close();
    expect(await followUps.schedule('b', START + DAY, 'b')).toMatchObject({ ok: false, code: 'closed' });
    expect(await followUps.arm('a')).toMatchObject({ ok: false, code: 'closed' });
    expect(followUps.armed).toBe(0);
  });

  it('leaves it unsent and reports failed when sending throws, so the next arm sends it', async () => {
    let fail = true;
    const { clock, sent, open } = rig();
    const flaky = open({
      send: (f) => {
        if (fail) throw new Error('telegram is down');
        sent.push(f);
      },
    });
    const events = recordEvents(flaky);
    await flaky.schedule('sess_1', START + DAY, 'check');
    await advance(clock, flaky, DAY);
    expect(events.at(-1)).toEqual({
      event: 'failed',
      payload: { id: 'sess_1', message: 'telegram is down', reason: 'telegram is down', at: START + DAY },
    });
    expect((await flaky.get('sess_1'))?.sentAt).toBeNull();
    fail = false;
    await flaky.arm('sess_1');
    await advance(clock, flaky, 0);
    expect(sent).toHaveLength(1);
  });

  it('reports what a send threw as its reason even when it is not an Error', async () => {
    const { clock, open } = rig();
    const flaky = open({
      send: () => {
        throw 'rate limited'; // a host's send may throw anything
      },
    });
    const events = recordEvents(flaky);
    await flaky.schedule('sess_1', START + DAY, 'check');
    await advance(clock, flaky, DAY);
    expect(events.at(-1)).toEqual({
      event: 'failed',
      payload: { id: 'sess_1', message: 'rate limited', reason: 'rate limited', at: START + DAY },
    });
    expect((await flaky.get('sess_1'))?.sentAt).toBeNull();
  });

  it('reports failed when its claim expired while it was being sent, leaving the outcome unknown', async () => {
    const { clock, open } = rig();
    const followUps = open({ send: () => clock.advance(DEFAULT_SEND_LEASE_MS) }); // a send slower than its lease
    const events = recordEvents(followUps);
    await followUps.schedule('sess_1', START + DAY, 'check');
    await advance(clock, followUps, DAY);
    expect(events.at(-1)).toMatchObject({
      event: 'failed',
      payload: { message: expect.stringContaining('changed while it was sent') },
    });
    expect(await open().arm('sess_1')).toMatchObject({ ok: false, code: 'outcome_unknown' });
  });

  it('sends nothing when the record was marked sent or deleted by another process before it fired', async () => {
    const { clock, store, sent, open } = rig();
    const followUps = open();
    await followUps.schedule('a', START + DAY, 'a');
    await followUps.schedule('b', START + DAY, 'b');
    await patchFollowUp(store, 'follow-up:a', { sentAt: START });
    await store.delete('follow-up:b');
    await advance(clock, followUps, DAY);
    expect(sent).toEqual([]);
  });

  it('reports a store that throws while firing as failed', async () => {
    const clock = createManualClock({ now: START });
    const inner = createMemoryStore({ clock });
    let broken = false;
    const store: Store = {
      ...inner,
      getEntry: (key) => (broken ? Promise.reject('store down') : inner.getEntry(key)),
    };
    const followUps = createFollowUps({ store, clock, keyPrefix: 'fu:', send: () => undefined });
    const failed: string[] = [];
    followUps.on('failed', (e) => failed.push(e.message));
    await followUps.schedule('a', START + DAY, { n: 1 });
    expect(followUps.keyOf('a')).toBe('fu:a');
    broken = true;
    clock.advance(DAY);
    await followUps.settled();
    expect(failed).toEqual([expect.stringContaining('store down')]);
  });
});
