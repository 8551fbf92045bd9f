// Stored flow sessions on the durable kernel: records of the previous format are refused and kept,
// a write that loses a race to a lease change re-runs on the fresh record, leases fence handles,
// and a failing store leaves nothing half-written.
import { createMemoryStore, type JsonValue, type Store } from '@parley/core';
import { describe, expect, it, vi } from 'vitest';
import { createFlowSessionStore } from '../src/index.js';
import { GOAL, intake, setup, YES } from './stored-helpers.js';

const LEGACY = {
  kind: 'parley.flow-session',
  format: 1,
  id: 's1',
  flow: intake.start({ at: 0 }),
  draft: null,
  data: null,
  retry: null,
  expiresAt: null,
  savedAt: 0,
} as unknown as JsonValue;

async function started(env: ReturnType<typeof setup>, id = 's1') {
  const start = await env.sessions.start(id, { data: null });
  if (!start.ok) throw new Error(start.message);
  return start.session;
}

describe('a record of the previous format (1, before the durable kernel)', () => {
  it('is refused foreign_version by resume and start, saying so, and never overwritten', async () => {
    const env = setup();
    await env.store.set('flow-session:s1', LEGACY);
    const resumed = await env.sessions.resume('s1');
    expect(resumed).toMatchObject({ ok: false, code: 'foreign_version' });
    expect(resumed.ok ? '' : resumed.message).toContain('format 1');
    expect(await env.sessions.start('s1', { data: null })).toMatchObject({
      ok: false,
      code: 'foreign_version',
    });
    expect(await env.store.get('flow-session:s1')).toEqual(LEGACY);
  });

  it('is told apart from a record that is no session at all (corrupt_record)', async () => {
    const env = setup();
    await env.store.set('flow-session:s1', { kind: 'parley.flow-session', format: 7 });
    expect(await env.sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
  });
});

describe('two writers', () => {
  it('re-runs a write on the fresh record when another process changed the record in between: nothing lost', async () => {
    const env = setup();
    const session = await started(env);
    const other = createFlowSessionStore(intake, { store: env.store, clock: env.clock });
    let raced = false;
    const racing: Store = {
      ...env.store,
      getEntry: (key) => env.store.getEntry(key),
      compareAndSet: async (key, expected, value, options) => {
        if (!raced) {
          raced = true; // another replica takes and gives back the lease between the read and the write
          const theirs = await other.resume('s1');
          if (!theirs.ok) throw new Error(theirs.message);
          await theirs.session.acquire({ ttlMs: 1_000 });
          await theirs.session.release();
        }
        return env.store.compareAndSet(key, expected, value, options);
      },
    };
    const sessions = createFlowSessionStore(intake, { store: racing, clock: env.clock });
    const mine = await sessions.resume('s1');
    if (!mine.ok) throw new Error(mine.message);
    expect(await mine.session.submit(GOAL)).toMatchObject({ ok: true, result: { ok: true } });
    expect(raced).toBe(true);
    const stored = (await env.store.get('flow-session:s1')) as {
      data: { rev: number; state: string };
    };
    expect([stored.data.rev, stored.data.state]).toEqual([2, 'confirm']);
    session.close();
  });

  it('refuses the writer whose answer was for a revision that moved on (conflict), keeping the other’s', async () => {
    const env = setup();
    const a = await started(env);
    const resumed = await env.sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    const b = resumed.session;
    const [first, second] = await Promise.all([
      a.submit(GOAL),
      b.submit({ goal: 'other', where: ['z', 'w'] }),
    ]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    const loser = first.ok ? b : a;
    expect(loser.stale).toBe(true);
    expect(await loser.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true }); // current again
    expect(loser.step).toBe('confirm');
    expect(await loser.submit(YES)).toMatchObject({ ok: true, result: { ok: true, next: 'close' } });
  });
});

describe('leases on a session', () => {
  it('refuses another handle lease_held while one holds the lease, and lets it write once given back', async () => {
    const env = setup();
    const holder = await started(env);
    const resumed = await env.sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(await holder.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    expect(await resumed.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: false, code: 'lease_held' });
    expect(await resumed.session.submit(GOAL)).toMatchObject({ ok: false, code: 'lease_held' });
    expect(await holder.submit(GOAL)).toMatchObject({ ok: true });
    await holder.release();
    expect(await resumed.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    expect(await resumed.session.submit(YES)).toMatchObject({ ok: true, result: { next: 'close' } });
  });

  it('gives the lease back in the write made with release: true (one write, not two)', async () => {
    const env = setup();
    const holder = await started(env);
    const resumed = await env.sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(await holder.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    const writes = vi.spyOn(env.store, 'compareAndSet');
    expect(await holder.submit(GOAL, { release: true })).toMatchObject({ ok: true });
    expect(writes).toHaveBeenCalledTimes(1);
    await holder.release(); // nothing left to give back: no write
    expect(writes).toHaveBeenCalledTimes(1);
    expect(await resumed.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    expect(await holder.update(null, { release: true })).toMatchObject({ ok: false, code: 'lease_held' });
    expect(await resumed.session.update(null, { release: true })).toMatchObject({ ok: true });
    expect(await env.store.get('flow-session:s1')).toMatchObject({ lease: null });
  });

  it('takes the lease with current: true only on the record the handle wrote last', async () => {
    const env = setup();
    const mine = await started(env);
    const resumed = await env.sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(await mine.acquire({ ttlMs: 1_000, current: true })).toMatchObject({ ok: true });
    await mine.release();
    expect(await resumed.session.submit(GOAL)).toMatchObject({ ok: true });
    expect(await mine.acquire({ ttlMs: 1_000, current: true })).toMatchObject({
      ok: false,
      code: 'conflict',
    });
    expect(mine.stale).toBe(true);
    expect(await env.store.get('flow-session:s1')).toMatchObject({ lease: null }); // given back
    expect(await mine.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true }); // current again
  });

  it('fences a holder whose lease expired and was taken: its write is lease_lost and not applied', async () => {
    const env = setup();
    const slow = await started(env);
    await slow.acquire({ ttlMs: 1_000 });
    env.clock.advance(1_000);
    const resumed = await env.sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(await resumed.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    expect(await slow.submit(GOAL)).toMatchObject({ ok: false, code: 'lease_lost' });
    const stored = (await env.store.get('flow-session:s1')) as { data: { rev: number } };
    expect(stored.data.rev).toBe(1);
  });

  it('renews a lease it could not give back (failing store) instead of being refused by its own lease', async () => {
    const env = setup({ saveRetryDelaysMs: [] });
    const session = await started(env);
    await session.acquire({ ttlMs: 1_000 });
    env.store.fail('compareAndSet', 1);
    await session.release(); // the store failed: the lease stays in the record
    expect(await session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    expect(await session.submit(GOAL)).toMatchObject({ ok: true });
  });

  it('refuses acquire of a record that is gone (not_found) and of a closed handle (closed)', async () => {
    const env = setup();
    const session = await started(env);
    await env.store.delete('flow-session:s1');
    expect(await session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: false, code: 'not_found' });
    session.close();
    expect(await session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: false, code: 'closed' });
  });
});

describe('a failing store', () => {
  it('retries taking the lease on the clock, then refuses store_failed with the store’s error; nothing written', async () => {
    const env = setup({ saveRetryDelaysMs: [10], wait: async () => undefined });
    const session = await started(env);
    env.store.fail('compareAndSet', 2);
    const taken = await session.acquire({ ttlMs: 1_000 });
    expect(taken).toMatchObject({ ok: false, code: 'store_failed', attempts: 2 });
    expect(String((taken as { cause?: unknown }).cause)).toContain('compareAndSet is down');
    expect(await env.store.get('flow-session:s1')).toMatchObject({ lease: null, data: { rev: 1 } });
  });

  it('refuses a record larger than the kernel takes as too_large, writing nothing', async () => {
    const clock = setup().clock;
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(intake, { store, clock });
    const big = 'x'.repeat(1024 * 1024);
    expect(await sessions.start('s1', { data: big })).toMatchObject({ ok: false, code: 'too_large' });
    expect(await store.get('flow-session:s1')).toBeUndefined();
  });
});

describe('many sessions in one store', () => {
  it('resumes each of more sessions than the codec remembers, each checked as stored', async () => {
    const env = setup();
    for (let i = 0; i < 70; i++) await started(env, `s${i}`);
    for (let i = 0; i < 70; i++) {
      const resumed = await env.sessions.resume(`s${i}`);
      expect(resumed.ok && resumed.session.id).toBe(`s${i}`);
    }
    const stored = (await env.store.get('flow-session:s3')) as { data: Record<string, unknown> };
    await env.store.set('flow-session:s3', { ...stored, data: { ...stored.data, draft: 'x' } } as never);
    expect(await env.sessions.resume('s3')).toMatchObject({ ok: false, code: 'corrupt_record' });
  });
});
