// Follow-ups on the durable kernel: the claim of a send is a lease with an owner, an expiry and a
// fencing token inside the follow-up's record, so another process never takes a send that is still
// in flight for unknown, and a sender whose claim expired or was taken over cannot mark it.
import { createManualClock, createMemoryStore, type JsonValue, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFollowUps, type FollowUp } from '../src/index.js';
import { patchFollowUp } from './follow-up-helpers.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 3, 15, 9);

/** Two processes on one store; `a` sends through a send that waits until `finish()` is called. */
function twoProcesses() {
  const clock = createManualClock({ now: START });
  const store = createMemoryStore({ clock });
  const sent: string[] = [];
  let finish: () => void = () => {};
  let started: () => void = () => {};
  const sending = new Promise<void>((resolve) => {
    started = resolve;
  });
  const a = createFollowUps<string>({
    store,
    clock,
    send: (f: FollowUp<string>) =>
      new Promise<void>((resolve) => {
        started();
        finish = () => {
          sent.push(`a:${f.payload}`);
          resolve();
        };
      }),
  });
  const b = createFollowUps<string>({ store, clock, send: (f) => void sent.push(`b:${f.payload}`) });
  return { clock, a, b, sent, sending, finish: () => finish() };
}

describe('createFollowUps across processes', () => {
  it('refuses in_flight, not outcome unknown, while another process is still sending it', async () => {
    const { clock, a, b, sent, sending, finish } = twoProcesses();
    const unknown: unknown[] = [];
    b.on('outcome-unknown', (e) => unknown.push(e));
    await a.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await sending; // a claimed it and its send is under way
    expect(await b.arm('sess_1')).toMatchObject({ ok: false, code: 'in_flight' });
    expect(await b.resolve('sess_1', 'unsent')).toMatchObject({ ok: false, code: 'in_flight' });
    expect(unknown).toEqual([]);
    finish();
    await a.settled();
    await b.settled();
    expect(sent).toEqual(['a:check']);
    expect(await b.get('sess_1')).toMatchObject({ sentAt: START + DAY });
  });

  it('reports outcome unknown once the sender’s claim expired without a mark, and the stale sender cannot mark it', async () => {
    const { clock, a, b, sent, sending, finish } = twoProcesses();
    const failed: string[] = [];
    a.on('failed', (e) => failed.push(e.message));
    await a.schedule('sess_1', START + DAY, 'check');
    clock.advance(DAY);
    await sending;
    clock.advance(DAY); // a is stuck far past its claim
    expect(await b.arm('sess_1')).toMatchObject({ ok: false, code: 'outcome_unknown' });
    expect(await b.resolve('sess_1', 'unsent')).toMatchObject({ ok: true });
    expect((await b.arm('sess_1')).ok).toBe(true);
    clock.advance(0);
    await b.settled();
    finish(); // a's send ends after b sent it: a's mark must not count
    await a.settled();
    expect(sent).toEqual(['b:check', 'a:check']);
    expect(failed).toEqual([expect.stringContaining('changed while it was sent')]);
    expect(await a.get('sess_1')).toMatchObject({ sentAt: START + 2 * DAY });
  });
});

describe('createFollowUps records', () => {
  it('refuses a record of another follow-up, another format version or no follow-up at all, never sending it', async () => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    const sent: string[] = [];
    const f = createFollowUps<string>({ store, clock, send: (x) => void sent.push(x.payload) });
    for (const id of ['a', 'b', 'c']) await f.schedule(id, START + DAY, id);
    await patchFollowUp(store, 'follow-up:a', { id: 'z' }); // a's key holds z
    const b = (await store.get('follow-up:b')) as Record<string, JsonValue>;
    await store.set('follow-up:b', { ...b, version: 2 });
    await patchFollowUp(store, 'follow-up:c', { dueAt: 'soon' });
    expect(await f.arm('a')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await f.arm('b')).toMatchObject({ ok: false, code: 'record_version' });
    expect(await f.schedule('b', START, 'again')).toMatchObject({ ok: false, code: 'record_version' });
    expect(await f.schedule('c', START, 'again')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await f.resolve('c', 'sent')).toMatchObject({ ok: false, code: 'corrupt_record' });
    clock.advance(DAY);
    await f.settled();
    expect(sent).toEqual([]);
    expect(await store.get('follow-up:b')).toMatchObject({ version: 2 }); // never overwritten
  });

  it('reports failed and sends nothing when the lease of the record cannot be taken', async () => {
    const clock = createManualClock({ now: START });
    const inner = createMemoryStore({ clock });
    let writes = 0;
    const store: Store = {
      ...inner,
      compareAndSet: (key, expected, value) =>
        ++writes === 2 ? Promise.reject(new Error('store down')) : inner.compareAndSet(key, expected, value),
    };
    const sent: string[] = [];
    const f = createFollowUps<string>({ store, clock, send: (x) => void sent.push(x.payload) });
    const failed: string[] = [];
    f.on('failed', (e) => failed.push(e.message));
    await f.schedule('a', START + DAY, 'a'); // write 1; taking the lease is write 2
    clock.advance(DAY);
    await f.settled();
    expect([sent, failed]).toEqual([[], [expect.stringContaining('store down')]]);
    expect(await f.get('a')).toMatchObject({ sendingAt: null, sentAt: null });
  });

  it('stores but does not arm a follow-up scheduled while it closes', async () => {
    const clock = createManualClock({ now: START });
    const f = createFollowUps<string>({ store: createMemoryStore({ clock }), clock, send: () => undefined });
    const scheduling = f.schedule('a', START + DAY, 'a');
    f.close();
    expect(await scheduling).toMatchObject({ ok: false, code: 'closed' });
    expect([await f.get('a'), f.armed]).toEqual([expect.objectContaining({ id: 'a' }), 0]);
  });

  it('throws invalid_argument for a sendLeaseMs that is not a positive integer', () => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    for (const sendLeaseMs of [0, -1, 1.5]) {
      expect(() => createFollowUps({ store, clock, send: () => undefined, sendLeaseMs })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});
