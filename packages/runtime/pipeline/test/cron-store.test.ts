// A cron trigger that records its fires in the Store: several processes running the same trigger
// fire each scheduled time once between them, a restarted process catches up from the record, and
// a store that fails or a record it cannot read never leads to a second fire.
import { createManualClock, createMemoryStore, isParleyError, type Store } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { type CronFire, createCronTrigger } from '../src/index.js';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 3, 10, 0, 0);
const KEY = 'cron:hourly';

/** The cron record as the kernel stores it. */
const cronRecord = (scheduledAt: number, firedAt: number) => ({
  kind: 'parley.pipeline.cron',
  version: 1,
  data: { scheduledAt, firedAt },
  lease: null,
  fence: 0,
  deadlineAt: null,
});

/** Lets store promises and the callbacks after them run (microtasks only; no time passes). */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function hourly(store: Store, clock = createManualClock({ now: START }), name = 'p1') {
  const fires: (CronFire & { by: string })[] = [];
  const errors: unknown[] = [];
  const trigger = createCronTrigger({
    cron: '0 * * * *',
    clock,
    store,
    key: KEY,
    onFire: (_at, fire) => fires.push({ ...fire, by: name }),
    onError: (error) => errors.push(error),
  });
  return { trigger, fires, errors, clock };
}

describe('createCronTrigger with a store', () => {
  it('fires each scheduled time once between two processes running the same trigger', async () => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    const a = hourly(store, clock, 'a');
    const b = hourly(store, clock, 'b');
    await flush();
    for (let hour = 1; hour <= 5; hour++) {
      clock.advance(HOUR);
      await flush();
    }
    const fired = [...a.fires, ...b.fires].map((fire) => fire.scheduledAt).sort();
    expect(fired).toEqual([1, 2, 3, 4, 5].map((hour) => START + hour * HOUR));
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(await store.get(KEY)).toMatchObject({ data: { scheduledAt: START + 5 * HOUR } });
    a.trigger.stop();
    b.trigger.stop();
  });

  it('catches up once after a restart from the recorded fire, without `since`', async () => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    const first = hourly(store, clock);
    clock.advance(HOUR);
    await flush();
    expect(first.fires).toMatchObject([{ scheduledAt: START + HOUR }]);
    first.trigger.stop(); // the process stops; three hours pass
    clock.advance(3 * HOUR + 10 * 60_000);
    const restarted = hourly(store, clock);
    await flush();
    expect(restarted.fires).toEqual([]); // never inside createCronTrigger or its first read
    clock.advance(0);
    await flush();
    expect(restarted.fires).toMatchObject([{ scheduledAt: START + 4 * HOUR, skipped: 2 }]);
    clock.advance(HOUR);
    await flush();
    expect(restarted.fires.map((fire) => fire.scheduledAt)).toEqual([START + 4 * HOUR, START + 5 * HOUR]);
    restarted.trigger.stop();
  });

  it('prefers the record to `since`, and uses `since` when there is no record', async () => {
    const clock = createManualClock({ now: START + 3 * HOUR + 60_000 });
    const store = createMemoryStore({ clock });
    const fires: CronFire[] = [];
    const options = {
      cron: '0 * * * *',
      clock,
      store,
      key: KEY,
      onFire: (_: number, f: CronFire) => fires.push(f),
      onError: (error: unknown) => {
        throw error;
      },
    };
    const fresh = createCronTrigger({ ...options, since: START + HOUR });
    clock.advance(0);
    await flush();
    expect(fires).toMatchObject([{ scheduledAt: START + 3 * HOUR, skipped: 1 }]);
    fresh.stop();
    const again = createCronTrigger({ ...options, since: START }); // the record says 03:00 fired
    clock.advance(0);
    await flush();
    expect(fires).toHaveLength(1);
    expect(again.next()).toBe(START + 4 * HOUR);
    again.stop();
  });

  it('does not fire when the claim cannot be written, reports it, and fires the next time', async () => {
    const clock = createManualClock({ now: START });
    const store = createFakeStore({ clock });
    const t = hourly(store, clock);
    await flush();
    store.fail('compareAndSet', { times: 1, error: new Error('store down') });
    clock.advance(HOUR);
    await flush();
    expect(t.fires).toEqual([]);
    expect(t.errors).toHaveLength(1);
    expect(isParleyError(t.errors[0], 'store_failed')).toBe(true);
    clock.advance(HOUR);
    await flush();
    expect(t.fires).toMatchObject([{ scheduledAt: START + 2 * HOUR }]);
    t.trigger.stop();
  });

  it('does not fire when another process claims the time between its read and its write', async () => {
    const clock = createManualClock({ now: START });
    const store = createFakeStore({ clock });
    const t = hourly(store, clock);
    await flush();
    store.before('compareAndSet', (inner) => inner.set(KEY, cronRecord(START + HOUR, START + HOUR)));
    clock.advance(HOUR);
    await flush();
    expect(t.fires).toEqual([]);
    expect(t.errors).toEqual([]);
    clock.advance(HOUR);
    await flush();
    expect(t.fires).toMatchObject([{ scheduledAt: START + 2 * HOUR }]);
    t.trigger.stop();
  });

  it('does not fire when the record cannot be read, and reports it', async () => {
    const clock = createManualClock({ now: START });
    const store = createFakeStore({ clock });
    const t = hourly(store, clock);
    clock.advance(0); // the read when it starts
    await t.trigger.idle();
    store.fail('getEntry', { times: 1 });
    clock.advance(HOUR);
    await t.trigger.idle();
    expect(t.fires).toEqual([]);
    expect(t.errors.map((error) => isParleyError(error, 'store_failed'))).toEqual([true]);
    t.trigger.stop();
  });

  it('gives up, reporting it, after losing three compare-and-sets in a row to writes of earlier times', async () => {
    const clock = createManualClock({ now: START + 5 * HOUR });
    const store = createFakeStore({ clock });
    const t = hourly(store, clock);
    let earlier = 0;
    store.before('compareAndSet', (inner) => inner.set(KEY, cronRecord(START + ++earlier * HOUR, START)), 3);
    clock.advance(HOUR);
    await t.trigger.idle();
    expect(t.fires).toEqual([]);
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toMatchObject({
      code: 'store_failed',
      details: { key: KEY, scheduledAt: START + 6 * HOUR },
    });
    t.trigger.stop();
  });

  it.each([
    ['corrupt', { ...cronRecord(START, START), data: { scheduledAt: 'yesterday' } }],
    ['written by another version', { ...cronRecord(START, START), version: 2 }],
    ['of another kind', { ...cronRecord(START, START), kind: 'other' }],
    ['not a kernel record', { v: 1, scheduledAt: START, firedAt: START }],
    ['not an object', 'garbage'],
  ])('never fires over a record that is %s, and leaves it as it was', async (_kind, record) => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    await store.set(KEY, record);
    const t = hourly(store, clock);
    clock.advance(0);
    await flush();
    clock.advance(2 * HOUR);
    await flush();
    expect(t.fires).toEqual([]);
    expect(t.errors.length).toBeGreaterThanOrEqual(2); // the read at start and each time due
    expect(t.errors.every((error) => isParleyError(error, 'corrupt_record'))).toBe(true);
    expect(await store.get(KEY)).toEqual(record);
    t.trigger.stop();
  });

  it('writes no claim when stopped before it, and gives back one being written when stopped', async () => {
    const clock = createManualClock({ now: START });
    const store = createFakeStore({ clock });
    const early = hourly(store, clock, 'early');
    clock.advance(HOUR);
    early.trigger.stop(); // before the claim's read finished
    await early.trigger.idle();
    expect(early.fires).toEqual([]);
    expect(store.calls.filter((call) => call.method === 'compareAndSet')).toEqual([]);

    const late = hourly(store, clock, 'late');
    store.before('compareAndSet', () => late.trigger.stop()); // stopped while its write is on the way
    clock.advance(HOUR);
    await late.trigger.idle();
    expect(late.fires).toEqual([]);
    expect(late.errors).toEqual([]);
    expect(await store.get(KEY)).toBeUndefined(); // given back, so another process may fire 02:00

    const next = createCronTrigger({
      cron: '0 * * * *',
      clock,
      store,
      key: KEY,
      since: START + HOUR,
      onFire: (_at, fire) => late.fires.push({ ...fire, by: 'next' }),
      onError: (error) => late.errors.push(error),
    });
    clock.advance(0);
    await next.idle();
    expect(late.fires).toMatchObject([{ scheduledAt: START + 2 * HOUR, by: 'next' }]);
    next.stop();
  });

  it('reports a claim it could not give back', async () => {
    const clock = createManualClock({ now: START });
    const store = createFakeStore({ clock });
    const t = hourly(store, clock);
    let writes = 0;
    store.before(
      'compareAndSet',
      () => {
        writes++;
        if (writes === 1)
          t.trigger.stop(); // stopped while the claim is on the way
        else throw new Error('store down'); // and the give-back fails
      },
      2,
    );
    clock.advance(HOUR);
    await t.trigger.idle();
    expect(t.fires).toEqual([]);
    expect(t.errors).toHaveLength(1);
    expect(isParleyError(t.errors[0], 'store_failed')).toBe(true);
    expect(await store.get(KEY)).toMatchObject({ data: { scheduledAt: START + HOUR } }); // claimed, not fired
  });

  it('resolves idle() once no claim is in flight', async () => {
    const clock = createManualClock({ now: START });
    const store = createMemoryStore({ clock });
    const t = hourly(store, clock);
    clock.advance(HOUR);
    await t.trigger.idle();
    expect(t.fires).toHaveLength(1);
    t.trigger.stop();
    await t.trigger.idle();
  });

  it('refuses a store without a key or onError, a key without a store, and a key of 0 or over 256 characters', () => {
    const store = createMemoryStore();
    const base = { cron: '0 * * * *', onFire: () => {}, onError: () => {}, clock: createManualClock() };
    for (const options of [
      { ...base, onError: undefined, store, key: KEY },
      { ...base, store },
      { ...base, key: KEY },
      { ...base, store, key: '' },
      { ...base, store, key: 'k'.repeat(257) },
      { ...base, store: {} as Store, key: KEY },
    ]) {
      expect(() => createCronTrigger(options)).toThrowError(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    createCronTrigger({ ...base, store, key: 'k'.repeat(256) }).stop();
  });
});
