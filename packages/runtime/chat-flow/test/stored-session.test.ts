import { describe, expect, it } from 'vitest';
import { createFlowSessionStore, type StoredFlowSession } from '../src/index.js';
import { drive, GOAL, intake, setup, type Step, YES } from './stored-helpers.js';

async function started(options: Parameters<typeof setup>[0] = {}) {
  const env = setup(options);
  const start = await env.sessions.start('s1', { data: { user: 'ann' } });
  if (!start.ok) throw new Error(start.message);
  return { ...env, session: start.session as StoredFlowSession<Step> };
}

describe('start', () => {
  it('writes a new record at the first step and refuses a second start of the same id', async () => {
    const { sessions, store } = await started();
    expect(await store.get('flow-session:s1')).toMatchObject({
      kind: 'parley.fsm.session',
      version: 5,
      data: { rev: 1, id: 's1', state: 'goal' },
      lease: null,
    });
    expect(await sessions.start('s1', { data: null })).toMatchObject({
      ok: false,
      code: 'exists',
      version: 1,
    });
  });

  it('answers a call it cannot read with a rejected promise, never a throw', async () => {
    const { sessions } = setup();
    const start = sessions.start as (id: string, options?: unknown) => Promise<unknown>;
    let started: Promise<unknown> | undefined;
    expect(() => {
      started = start('s1');
    }).not.toThrow();
    await expect(started).rejects.toThrow(TypeError);
  });

  it('refuses store_failed when the store throws on the first write', async () => {
    const { sessions, store } = setup();
    store.fail('compareAndSet', 1);
    expect(await sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'store_failed' });
  });
});

describe('submit', () => {
  it('writes data computed from the verdict in the same compare-and-set', async () => {
    const { session, store } = await started();
    const data = (result: { ok: boolean }) => ({ user: 'ann', moved: result.ok });
    await session.submit({ goal: 'x' }, { data }); // refused by the flow: written with moved false
    expect(await store.get('flow-session:s1')).toMatchObject({ data: { data: { moved: false } } });
    const answer = await session.submit(GOAL, { data });
    expect(answer).toMatchObject({ ok: true, version: 3 });
    expect(await store.get('flow-session:s1')).toMatchObject({
      data: { data: { user: 'ann', moved: true } },
    });
  });

  it('writes each answer with compare-and-set and returns the flow verdict', async () => {
    const { session, store } = await started();
    const answer = await session.submit(GOAL);
    expect(answer).toMatchObject({ ok: true, version: 2, result: { ok: true, next: 'confirm' } });
    expect(session.version).toBe(2);
    expect((await store.getEntry('flow-session:s1'))?.version).toBe(2);
    expect(session.prompt).toBe('Type YES');
  });

  it('keeps a failed answer of a slot-filling step as a draft and merges the next one into it', async () => {
    const { session, sessions } = await started();
    const first = await session.submit({ goal: 'remove reposts', where: ['x'] });
    expect(first).toMatchObject({ ok: true, result: { ok: false, code: 'invalid_fields' } });
    expect(session.draft).toEqual({
      step: 'goal',
      part: 0,
      fields: { goal: 'remove reposts', where: ['x'] },
    });
    expect(session.merged({ where: ['x', 'y'] })).toEqual({ goal: 'remove reposts', where: ['x', 'y'] });
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.draft?.fields).toEqual({ goal: 'remove reposts', where: ['x'] });
    const second = await session.submit({ where: ['y'] });
    expect(second).toMatchObject({ ok: true, result: { ok: true, step: 'goal' } });
    expect(session.fields.goal).toEqual({ goal: 'remove reposts', where: ['x', 'y'] });
    expect(session.draft).toBeNull();
  });

  it('submits transient fields without keeping them in the draft', async () => {
    const { session } = await started();
    await session.submit({ goal: 'remove reposts' }, { transient: { checked: true } });
    expect(session.draft?.fields).toEqual({ goal: 'remove reposts' });
  });

  it('keeps no draft for other steps, for a step left by `back`, or for an answer that is not an object', async () => {
    const { session } = await started();
    await session.submit(GOAL);
    await session.submit({ confirm: 'yes' });
    expect(session.step).toBe('goal');
    expect(session.draft).toBeNull();
    await session.submit('just text');
    expect(session.draft).toBeNull();
  });

  it('writes host data with an answer, and on its own with update', async () => {
    const { session, sessions } = await started();
    await session.submit(GOAL, { data: { user: 'ann', plan: 'p1' } });
    expect(await session.update({ user: 'ann', plan: 'p2' })).toEqual({ ok: true, version: 3 });
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.data).toEqual({ user: 'ann', plan: 'p2' });
  });

  it('writes and reports a submission after the flow is done as the flow refuses it', async () => {
    const { session, clock } = await started();
    await session.submit(GOAL);
    await session.submit(YES);
    await drive(
      clock,
      session.perform(() => ({ audit_saved: true })),
    );
    expect(session.done).toBe(true);
    expect(await session.submit({})).toMatchObject({ ok: true, result: { ok: false, code: 'flow_done' } });
    expect(
      await drive(
        clock,
        session.perform(() => ({})),
      ),
    ).toMatchObject({ ok: false, code: 'retries_exhausted' });
  });
});

describe('a lost race', () => {
  it('refuses conflict, leaves the handle as it was and stale for every later write', async () => {
    const { session, sessions } = await started();
    const other = await sessions.resume('s1');
    if (!other.ok) throw new Error(other.message);
    await other.session.submit(GOAL);
    const refused: string[] = [];
    session.on('refused', (e) => refused.push(e.code));
    expect(await session.submit(GOAL)).toMatchObject({ ok: false, code: 'conflict', version: 2 });
    expect([session.step, session.version, session.stale]).toEqual(['goal', 1, true]);
    expect(await session.update(null)).toMatchObject({ ok: false, code: 'stale' });
    expect(refused).toEqual(['conflict', 'stale']);
    expect(other.session.step).toBe('confirm');
  });
});

describe('a failing store', () => {
  it('retries a throwing write on the clock and succeeds within the bound', async () => {
    const { session, store, clock } = await started();
    const failures: number[] = [];
    const messages: string[] = [];
    session.on('save-failed', (e) => {
      failures.push(e.attempt);
      messages.push(e.message);
    });
    store.fail('compareAndSet', 2);
    const at = clock.now();
    expect(await drive(clock, session.submit(GOAL))).toMatchObject({ ok: true, version: 2 });
    expect(failures).toEqual([1, 2]);
    expect(messages).toHaveLength(2);
    expect(messages.every((message) => message.includes('compareAndSet'))).toBe(true);
    expect(clock.now() - at).toBe(3_000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses store_failed after the last try, and nothing moves', async () => {
    const { session, store, clock } = await started({ saveRetryDelaysMs: [500] });
    const saved: number[] = [];
    session.on('saved', (e) => saved.push(e.version));
    store.fail('compareAndSet', 2);
    expect(await drive(clock, session.submit(GOAL))).toMatchObject({
      ok: false,
      code: 'store_failed',
      attempts: 2,
    });
    expect([session.step, session.version, saved]).toEqual(['goal', 1, []]);
    expect(await session.submit(GOAL)).toMatchObject({ ok: true, version: 2 });
  });

  it('ends a save waiting to retry when the handle is closed', async () => {
    const { session, store, clock } = await started();
    store.fail('compareAndSet', 1);
    const pending = session.submit(GOAL);
    await new Promise((resolve) => setImmediate(resolve));
    session.close();
    expect(await pending).toMatchObject({ ok: false, code: 'closed' });
    expect(clock.pendingTimers()).toBe(0);
    expect(await session.submit(GOAL)).toMatchObject({ ok: false, code: 'closed' });
  });
});

describe('idle expiry', () => {
  it('refuses a write at or after the stored expiresAt, whatever timers did', async () => {
    const { session, clock } = await started({ idleTimeoutMs: 60_000 });
    expect(session.expiresAt).toBe(clock.now() + 60_000);
    clock.advance(30_000);
    await session.submit(GOAL);
    expect(session.expiresAt).toBe(clock.now() + 60_000);
    clock.advance(60_000);
    expect(await session.submit(YES)).toMatchObject({ ok: false, code: 'expired' });
    expect(session.step).toBe('confirm');
  });
});

describe('perform', () => {
  it('completes the step when the effect succeeds at once', async () => {
    const { session, clock } = await started();
    await session.submit(GOAL);
    await session.submit(YES);
    const result = await drive(
      clock,
      session.perform(() => ({ audit_saved: true })),
    );
    expect(result).toMatchObject({ ok: true, attempts: 1, result: { ok: true, next: 'done' } });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('writes each failure with the due time of the next attempt and retries on the clock', async () => {
    const { session, clock } = await started();
    await session.submit(GOAL);
    await session.submit(YES);
    const seen: { attempt: number; at: number; mark: string | null }[] = [];
    const scheduled: number[] = [];
    session.on('retry-scheduled', (e) => scheduled.push(e.dueAt - clock.now()));
    const start = clock.now();
    const result = await drive(
      clock,
      session.perform((attempt) => {
        seen.push({ attempt, at: clock.now() - start, mark: session.mark });
        return { audit_saved: attempt === 3 };
      }),
    );
    expect(result).toMatchObject({ ok: true, attempts: 3 });
    expect(seen).toEqual([
      { attempt: 1, at: 0, mark: null },
      { attempt: 2, at: 1_000, mark: 'close_pending' },
      { attempt: 3, at: 3_000, mark: 'close_pending' },
    ]);
    expect(scheduled).toEqual([1_000, 2_000]);
    expect([session.mark, session.retry, session.done]).toEqual([null, null, true]);
  });

  it('gives up after the last attempt, keeping the mark and clearing the due retry', async () => {
    const { session, clock } = await started({ effectRetryDelaysMs: [100] });
    await session.submit(GOAL);
    await session.submit(YES);
    const result = await drive(
      clock,
      session.perform(() => ({ audit_saved: false })),
    );
    expect(result).toMatchObject({ ok: false, code: 'retries_exhausted', attempts: 2 });
    expect([session.mark, session.retry, session.step]).toEqual(['close_pending', null, 'close']);
    expect(
      await drive(
        clock,
        session.perform(() => ({ audit_saved: true })),
      ),
    ).toMatchObject({ ok: true, attempts: 1 });
  });

  it('ends a waiting retry with closed and leaves no timer', async () => {
    const { session, clock } = await started();
    await session.submit(GOAL);
    await session.submit(YES);
    const pending = session.perform(() => ({ audit_saved: false }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(session.retry).toMatchObject({ attempts: 1 });
    session.close();
    expect(await pending).toMatchObject({ ok: false, code: 'closed' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('returns a refusal of the write that recorded an attempt', async () => {
    const { session, clock } = await started({ idleTimeoutMs: 500 });
    await session.submit(GOAL);
    await session.submit(YES);
    const result = await drive(
      clock,
      session.perform(() => ({ audit_saved: false })),
    );
    expect(result).toMatchObject({ ok: false, code: 'expired' });
  });
});

describe('a host on simulated time', () => {
  it('waits through the given wait function and reports every written submission', async () => {
    const waits: number[] = [];
    const env = setup({
      effectRetryDelaysMs: [250],
      wait: async (ms) => {
        waits.push(ms);
        env.clock.advance(ms);
      },
    });
    const start = await env.sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    const verdicts: string[] = [];
    start.session.on('submitted', (e) => verdicts.push(e.result.ok ? `ok ${e.result.step}` : e.result.code));
    await start.session.submit(GOAL);
    await start.session.submit(YES);
    const result = await start.session.perform((attempt) => ({ audit_saved: attempt === 2 }));
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(waits).toEqual([250]);
    expect(verdicts).toEqual(['ok goal', 'ok confirm', 'invalid_fields', 'ok close']);
  });

  it('refuses closed when the handle was closed during the wait', async () => {
    const env = setup({ effectRetryDelaysMs: [250] });
    const start = await env.sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    await start.session.submit(YES);
    let resumed: StoredFlowSession<Step> | undefined;
    const closing = createFlowSessionStore(intake, {
      store: env.store,
      clock: env.clock,
      wait: async () => resumed?.close(),
    });
    const again = await closing.resume('s1');
    if (!again.ok) throw new Error(again.message);
    resumed = again.session;
    expect(await resumed.perform(() => ({ audit_saved: false }))).toMatchObject({
      ok: false,
      code: 'closed',
    });
  });
});
