// Follow-ups claim before they send: of two processes that both armed one, only the one whose
// compare-and-set claim wins sends it; a claim found without `sentAt` after a restart means the
// send's outcome is unknown, which is reported and never resent silently.
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFollowUps, type FollowUps, type FollowUpsOptions } from '../src/index.js';
import { patchFollowUp, storedFollowUp } from './follow-up-helpers.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 3, 15, 9);

function rig(store?: Store) {
  const clock = createManualClock({ now: START });
  const shared = store ?? createMemoryStore({ clock });
  const sent: string[] = [];
  const open = (more: Partial<FollowUpsOptions<string>> = {}): FollowUps<string> =>
    createFollowUps<string>({ store: shared, clock, send: (f) => void sent.push(f.payload), ...more });
  return { clock, store: shared, sent, open };
}

/**
 * A memory store whose fourth compare-and-set rejects with `message`: 1 schedules, 2 takes the
 * record's lease, 3 claims the send, 4 marks it sent or gives the claim back, 5 releases the lease.
 */
function fourthWriteFails(clock: ManualClock, message: string): { inner: Store; store: Store } {
  const inner = createMemoryStore({ clock });
  let casCalls = 0;
  const store: Store = {
    ...inner,
    compareAndSet: (key, expected, value) =>
      ++casCalls === 4 ? Promise.reject(new Error(message)) : inner.compareAndSet(key, expected, value),
  };
  return { inner, store };
}

describe('createFollowUps claims', () => {
  it('sends once when two processes on one store both armed it', async () => {
    const { clock, sent, open } = rig();
    const a = open();
    const b = open();
    await a.schedule('sess_1', START + DAY, 'check');
    expect((await b.arm('sess_1')).ok).toBe(true);
    const skipped: string[] = [];
    for (const f of [a, b]) f.on('skipped', (e) => skipped.push(e.code));
    clock.advance(DAY);
    await Promise.all([a.settled(), b.settled()]);
    expect(sent).toEqual(['check']);
    expect(skipped).toHaveLength(1);
    expect(await a.get('sess_1')).toMatchObject({ sendingAt: START + DAY, sentAt: START + DAY });
  });

  it('writes the claim before it sends', async () => {
    const { clock, store, open } = rig();
    const seen: unknown[] = [];
    const f = open({ send: async () => void seen.push(await storedFollowUp(store, 'follow-up:sess_1')) });
    await f.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await f.settled();
    expect(seen).toEqual([expect.objectContaining({ sendingAt: START + DAY, sentAt: null })]);
  });

  it('reports a claim without sentAt after a restart as outcome unknown and does not resend it', async () => {
    const { clock, store, sent, open } = rig();
    let started: () => void = () => undefined;
    const sending = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = open({
      send: () => {
        started();
        return new Promise<void>(() => undefined); // the process dies mid-send
      },
    });
    await first.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await sending;
    first.close();
    expect(await storedFollowUp(store, 'follow-up:sess_1')).toMatchObject({
      sendingAt: START + DAY,
      sentAt: null,
    });
    const second = open();
    const unknown: unknown[] = [];
    second.on('outcome-unknown', (e) => unknown.push(e));
    clock.advance(DAY);
    expect(await second.arm('sess_1')).toMatchObject({ ok: false, code: 'outcome_unknown' });
    expect(unknown).toEqual([{ id: 'sess_1', sendingAt: START + DAY, at: START + 2 * DAY }]);
    clock.advance(DAY);
    await second.settled();
    expect([sent, second.armed, clock.pendingTimers()]).toEqual([[], 0, 0]);
  });

  it('reports a claim it finds when the timer fires instead of sending', async () => {
    const { clock, store, sent, open } = rig();
    const f = open();
    const skipped: unknown[] = [];
    f.on('skipped', (e) => skipped.push(e));
    await f.schedule('sess_1', START + DAY, 'check');
    await patchFollowUp(store, 'follow-up:sess_1', { sendingAt: START }); // another process claimed it
    clock.advance(DAY);
    await f.settled();
    expect(sent).toEqual([]);
    expect(skipped).toEqual([{ id: 'sess_1', code: 'claimed', reason: 'claimed', at: START + DAY }]);
  });

  it('keeps the claim when marking it sent fails, so a restart reports it instead of resending', async () => {
    const clock = createManualClock({ now: START });
    const { store } = fourthWriteFails(clock, 'crash');
    const { sent, open } = rig(store);
    const f = createFollowUps<string>({ store, clock, send: (x) => void sent.push(x.payload) });
    const failed: string[] = [];
    f.on('failed', (e) => failed.push(e.message));
    await f.schedule('sess_1', START + DAY, 'check'); // write 1; the mark is write 4
    clock.advance(DAY);
    await f.settled();
    expect([sent, failed]).toEqual([['check'], [expect.stringContaining('crash')]]);
    expect(await open().arm('sess_1')).toMatchObject({ ok: false, code: 'outcome_unknown' });
  });

  it('reports why the send failed when the claim cannot be given back, and this process sends it when armed again', async () => {
    const clock = createManualClock({ now: START });
    const { store } = fourthWriteFails(clock, 'store down');
    let attempts = 0;
    const sent: string[] = [];
    const f = createFollowUps<string>({
      store,
      clock,
      send: (x) => {
        if (++attempts === 1) throw new Error('smtp refused');
        sent.push(x.payload);
      },
    });
    const failed: string[] = [];
    f.on('failed', (e) => failed.push(e.message));
    await f.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await f.settled();
    expect(failed).toEqual([
      expect.stringMatching(/^smtp refused \(and the claim could not be given back: .*store down\)$/),
    ]);
    expect(await f.get('sess_1')).toMatchObject({ sendingAt: START + DAY, sentAt: null });
    // This process knows the send failed: armed again, it gives the claim back and sends.
    expect(await f.arm('sess_1')).toMatchObject({ ok: true });
    clock.advance(0); // it was due already
    await f.settled();
    expect(sent).toEqual(['check']);
    expect(await f.get('sess_1')).toMatchObject({ sentAt: START + DAY });
    // Another process cannot know it: for it the outcome stayed unknown until this one sent it.
  });

  it('remembers at most 1 000 failed sends whose claim it could not give back, forgetting the oldest', async () => {
    const clock = createManualClock({ now: START });
    const inner = createMemoryStore({ clock });
    const store: Store = {
      ...inner,
      compareAndSet: async (key, expected, value) => {
        const before = (await inner.get(key)) as { data: { sendingAt: unknown } } | undefined;
        const after = value as { data: { sendingAt: unknown } } | undefined;
        return typeof before?.data.sendingAt === 'number' && after?.data.sendingAt === null
          ? Promise.reject(new Error('store down')) // every give-back fails
          : inner.compareAndSet(key, expected, value);
      },
    };
    const f = createFollowUps<string>({
      store,
      clock,
      maxArmed: 2_000,
      send: () => {
        throw new Error('smtp refused');
      },
    });
    for (let i = 0; i <= 1_000; i++) await f.schedule(`s${i}`, START + DAY, 'check');
    clock.advance(DAY);
    await f.settled();
    expect(await f.arm('s0')).toMatchObject({ ok: false, code: 'outcome_unknown' }); // forgotten
    await expect(f.arm('s1')).rejects.toThrow('store down'); // remembered: it tries the give-back again
  });

  it('leaves a claim it could not give back to another process as outcome unknown', async () => {
    const clock = createManualClock({ now: START });
    const { inner, store } = fourthWriteFails(clock, 'store down');
    const f = createFollowUps<string>({
      store,
      clock,
      send: () => {
        throw new Error('smtp refused');
      },
    });
    await f.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await f.settled();
    const other = createFollowUps<string>({ store: inner, clock, send: () => {} });
    expect(await other.arm('sess_1')).toMatchObject({ ok: false, code: 'outcome_unknown' });
  });
  it('resolves an unknown outcome as sent or unsent when the host decides', async () => {
    const { clock, store, sent, open } = rig();
    const f = open();
    await f.schedule('a', START + DAY, 'a');
    await f.schedule('b', START + DAY, 'b');
    for (const id of ['a', 'b']) await patchFollowUp(store, `follow-up:${id}`, { sendingAt: START });
    expect(await f.resolve('a', 'sent')).toMatchObject({ ok: true, followUp: { sentAt: START } });
    expect(await f.arm('a')).toMatchObject({ ok: false, code: 'already_sent' });
    expect(await f.resolve('b', 'unsent')).toMatchObject({ ok: true, followUp: { sendingAt: null } });
    expect((await f.arm('b')).ok).toBe(true);
    clock.advance(DAY);
    await f.settled();
    expect(sent).toEqual(['b']);
    expect(await f.resolve('b', 'unsent')).toMatchObject({ ok: false, code: 'already_sent' });
    expect(await f.resolve('c', 'sent')).toMatchObject({ ok: false, code: 'not_found' });
    expect(await f.resolve('b', 'sent')).toMatchObject({ ok: false, code: 'already_sent' });
  });

  it('refuses to resolve a follow-up that was never claimed, and after close', async () => {
    const { open } = rig();
    const f = open();
    await f.schedule('a', START + DAY, 'a');
    expect(await f.resolve('a', 'sent')).toMatchObject({ ok: false, code: 'not_claimed' });
    f.close();
    expect(await f.resolve('a', 'sent')).toMatchObject({ ok: false, code: 'closed' });
  });

  it('refuses a record written before the kernel kept follow-ups as corrupt_record and never sends it', async () => {
    const { clock, store, sent, open } = rig();
    await store.set('follow-up:old', {
      kind: 'parley.follow-up',
      id: 'old',
      dueAt: START + DAY,
      payload: 'old',
      createdAt: START,
      sentAt: null,
    });
    const f = open();
    expect(await f.arm('old')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await f.resolve('old', 'unsent')).toMatchObject({ ok: false, code: 'corrupt_record' });
    clock.advance(DAY);
    await f.settled();
    expect(sent).toEqual([]);
  });
});

describe('createFollowUps resolve races', () => {
  it('refuses conflict when other processes keep writing the record between the read and the write', async () => {
    const clock = createManualClock({ now: START });
    const inner = createMemoryStore({ clock });
    let race = false;
    const store: Store = {
      ...inner,
      compareAndSet: async (key, expected, value) => {
        if (race) await inner.set(key, (await inner.get(key)) ?? null);
        return inner.compareAndSet(key, expected, value);
      },
    };
    const f = createFollowUps<string>({ store, clock, send: () => undefined });
    await f.schedule('a', START + DAY, 'a');
    await patchFollowUp(store, 'follow-up:a', { sendingAt: START });
    race = true; // another process writes before every write of this one
    expect(await f.resolve('a', 'sent')).toMatchObject({ ok: false, code: 'conflict' });
  });
});
