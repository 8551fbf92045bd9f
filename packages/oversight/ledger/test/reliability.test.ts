import {
  createManualClock,
  createMemoryStore,
  isParleyError,
  type JsonValue,
  type Store,
} from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createLedger, verifyLedger } from '../src/index.js';
import { confirmedRun, linesOf } from './helpers.js';

const KEY = 'parley:ledger:s1';

/** A store that dies (every call throws) after `writes` successful writes: a crash. */
function crashingAfter(inner: Store, writes: number): Store {
  let left = writes;
  const die = (): never => {
    throw new Error('process died');
  };
  return {
    ...inner,
    get: (key) => (left < 0 ? die() : inner.get(key)),
    getEntry: (key) => (left < 0 ? die() : inner.getEntry(key)),
    set: async (key, value, options) => {
      if (left-- <= 0) die();
      return inner.set(key, value, options);
    },
    compareAndSet: async (key, expected, value, options) => {
      if (left-- <= 0) die();
      return inner.compareAndSet(key, expected, value, options);
    },
    delete: async (key) => {
      if (left-- <= 0) die();
      return inner.delete(key);
    },
    list: (prefix) => inner.list(prefix),
  };
}

describe('reliability', () => {
  it('a crash between any two writes leaves a verifiable prefix, and never an effect without its decision and authorization', async () => {
    const facts = confirmedRun();
    for (let writes = 0; writes <= facts.length; writes++) {
      const clock = createManualClock({ now: 1_000 });
      const inner = createMemoryStore({ clock });
      const dying = createLedger({ store: crashingAfter(inner, writes), clock });
      for (const fact of facts) {
        const result = await dying.append('s1', fact);
        if (!result.ok) {
          expect(result.code).toBe('store_failed');
          break;
        }
      }
      const restarted = createLedger({ store: inner, clock });
      const entries = await restarted.entries('s1');
      expect(entries.map((e) => e.body.kind)).toEqual(facts.slice(0, writes).map((f) => f.kind));
      expect(verifyLedger(await linesOf(restarted, 's1')).ok || entries.length === 0).toBe(true);
      // the restarted process goes on from what was committed, never around it
      for (const fact of facts.slice(writes)) expect((await restarted.append('s1', fact)).ok).toBe(true);
      expect(verifyLedger(await linesOf(restarted, 's1'))).toMatchObject({ ok: true, entries: 6 });
    }
  });

  it('reports a failing store write as store_failed and writes nothing', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createFakeStore({ clock });
    const ledger = createLedger({ store, clock });
    store.fail(['compareAndSet', 'set'], { times: 10 });
    const result = await ledger.append('s1', confirmedRun()[0] as never);
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    store.heal();
    expect(await ledger.entries('s1')).toEqual([]);
    store.fail('getEntry');
    await expect(ledger.entries('s1')).rejects.toSatisfy((e) => isParleyError(e, 'store_failed'));
  });

  it('two replicas appending at once never fork the chain', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const a = createLedger({ store, clock, owner: 'a' });
    const b = createLedger({ store, clock, owner: 'b' });
    const appends = [];
    for (let i = 0; i < 10; i++) {
      const body = { kind: 'prompt_delivered', confirmationId: 'c1', step: 1, attempt: i + 1 } as const;
      appends.push((i % 2 === 0 ? a : b).append('s1', body));
    }
    const results = await Promise.all(appends);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const entries = await a.entries('s1');
    expect(entries.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(verifyLedger(await linesOf(b, 's1'))).toMatchObject({ ok: true, entries: 10 });
  });

  it('the same fact delivered to two replicas at once is recorded once', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const a = createLedger({ store, clock });
    const b = createLedger({ store, clock });
    const answer = confirmedRun()[2] as never;
    const [x, y] = await Promise.all([a.append('s1', answer), b.append('s1', answer)]);
    expect([x?.ok && x.duplicate, y?.ok && y.duplicate].sort()).toEqual([false, true]);
    expect((await a.entries('s1')).length).toBe(1);
  });

  it('refuses a stored chain with a corrupt entry and one of another version, never overwriting them', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const ledger = createLedger({ store, clock });
    await ledger.append('s1', confirmedRun()[0] as never);
    const text = JSON.stringify(await store.get(KEY));
    const stored = JSON.parse(text) as { [key: string]: JsonValue };
    // the entry's time moved by 1 ms: it no longer matches its hash
    const edited = JSON.parse(
      text.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`),
    ) as JsonValue;
    await store.set(KEY, edited);
    expect(await ledger.append('s1', confirmedRun()[1] as never)).toMatchObject({
      ok: false,
      code: 'corrupt_record',
    });
    await expect(ledger.entries('s1')).rejects.toSatisfy((e) => isParleyError(e, 'corrupt_record'));
    expect(await store.get(KEY)).toEqual(edited);

    for (const bad of [
      { session: 1, entries: [] },
      { session: 's1', entries: [{ v: 2 }] },
    ]) {
      await store.set(KEY, { ...stored, data: bad });
      expect((await ledger.append('s1', confirmedRun()[1] as never)).ok).toBe(false);
    }
    await store.set(KEY, { ...stored, version: 2 });
    expect(await ledger.append('s1', confirmedRun()[1] as never)).toMatchObject({
      ok: false,
      code: 'record_version',
    });
    await expect(ledger.entries('s1')).rejects.toSatisfy((e) => isParleyError(e, 'record_version'));
    expect(await store.get(KEY)).toEqual({ ...stored, version: 2 });
  });
});
