// What a stored session does with a record it did not write: another session's record under its key,
// a flow snapshot of another machine or a mistyped field is refused (never resumed, never
// overwritten), and a store that fails while the record is read is a refusal, not a throw.
import { createKernel, createManualClock, createMemoryStore, type JsonValue, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFlowSessionStore } from '../src/index.js';
import { createFlakyStore, drive, intake, setup } from './stored-helpers.js';

const KEY = 'flow-session:s1';

/** The stored kernel record of a fresh session `s1`, with `patch` written over its data. */
async function tampered(patch: Record<string, JsonValue>) {
  const env = setup();
  const start = await env.sessions.start('s1', { data: null });
  if (!start.ok) throw new Error(start.message);
  start.session.close();
  const record = (await env.store.get(KEY)) as { data: Record<string, JsonValue> };
  const value = { ...record, data: { ...record.data, ...patch } } as JsonValue;
  await env.store.set(KEY, value);
  return { env, value };
}

describe('a record that is not this session', () => {
  it("refuses another session's record under this key as corrupt_record and leaves it", async () => {
    const { env, value } = await tampered({ id: 's2' });
    const resumed = await env.sessions.resume('s1');
    expect(resumed).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(resumed.ok ? '' : resumed.message).toContain('"s2"');
    expect(await env.store.get(KEY)).toEqual(value);
  });

  it('refuses a flow snapshot of another machine as foreign_version', async () => {
    const { env } = await tampered({ machine: 'other' }); // the snapshot's fields are the record's
    expect(await env.sessions.resume('s1')).toMatchObject({ ok: false, code: 'foreign_version' });
  });

  it('refuses mistyped times as corrupt_record', async () => {
    for (const patch of [{ savedAt: 'yesterday' }, { expiresAt: 'never' }] as Record<string, JsonValue>[]) {
      const { env } = await tampered(patch);
      expect(await env.sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
    }
  });
});

describe('another kind of kernel record under the session key', () => {
  it('refuses a claim record there as corrupt_record and leaves it', async () => {
    const env = setup();
    const kernel = createKernel({ store: env.store, clock: env.clock, owner: 'elsewhere' });
    await kernel.claim(KEY, { id: 'send-42', digest: 'sha256:ab', leaseMs: 30_000 });
    const before = await env.store.get(KEY);
    expect(await env.sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await env.sessions.start('s1', { data: null })).toMatchObject({
      ok: false,
      code: 'corrupt_record',
    });
    expect(await env.store.get(KEY)).toEqual(before);
  });

  it('refuses a session record of another kernel format as foreign_version', async () => {
    const { env } = await tampered({});
    const record = (await env.store.get(KEY)) as Record<string, JsonValue>;
    await env.store.set(KEY, { ...record, version: 6 }); // a later release's
    expect(await env.sessions.resume('s1')).toMatchObject({ ok: false, code: 'foreign_version' });
  });
});

describe('a store that fails while a session is read', () => {
  it('refuses resume with store_failed instead of throwing', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createFlakyStore(clock);
    const sessions = createFlowSessionStore(intake, { store, clock });
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    start.session.close();
    store.fail('getEntry', 1);
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'store_failed' });
  });

  it('keeps a value it cannot tell from an old record refused as corrupt when the second read fails too', async () => {
    const inner = createMemoryStore();
    await inner.set(KEY, { kind: 'something else' });
    let reads = 0;
    const store: Store = {
      ...inner,
      getEntry: (key) => inner.getEntry(key),
      get: async (key) => {
        reads += 1;
        throw new Error(`get ${key} is down`);
      },
    };
    const sessions = createFlowSessionStore(intake, { store });
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(reads).toBe(1);
    expect(await inner.get(KEY)).toEqual({ kind: 'something else' });
  });
});

describe('a lease the handle could not give back', () => {
  async function held() {
    const clock = createManualClock({ now: 1_000 });
    const store = createFlakyStore(clock);
    const sessions = createFlowSessionStore(intake, { store, clock });
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    expect(await start.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    store.fail('compareAndSet', 1);
    await start.session.release(); // the give-back fails: the handle keeps the lease
    return { clock, store, sessions, session: start.session };
  }

  it('is renewed by the next acquire, and a renewal the store fails is refused store_failed', async () => {
    const { clock, store, session } = await held();
    store.fail('compareAndSet', 10); // more than the save retries
    const renewed = await drive(clock, session.acquire({ ttlMs: 1_000 }));
    expect(renewed).toMatchObject({ ok: false, code: 'store_failed' });
    store.fail('compareAndSet', 0);
    expect(await session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
  });

  it('is taken afresh once it was lost to another process', async () => {
    const { clock, store, session } = await held();
    clock.advance(1_001); // the kept lease ran out
    const other = await createFlowSessionStore(intake, { store, clock }).resume('s1');
    if (!other.ok) throw new Error(other.message);
    expect(await other.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    await other.session.release();
    expect(await session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
  });
});

describe('a record deleted behind a handle', () => {
  it('refuses the write not_found on a fresh read, and writes nothing', async () => {
    const env = setup();
    const start = await env.sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await env.store.delete(KEY); // another writer removed it: the handle's basis is stale
    expect(await start.session.update(null)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await env.store.get(KEY)).toBeUndefined();
  });
});
