import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineFlow } from '@parley/fsm';
import { createFlowSessionStore } from '../src/index.js';
import { drive, GOAL, intake, setup, YES } from './stored-helpers.js';

describe('a restart', () => {
  it('resumes from the store where the last process stopped, draft and data included', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    const first = createFlowSessionStore(intake, { store, clock, draftSteps: ['goal'] });
    const start = await first.start('s1', { data: { plan: 'p1' } });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit({ goal: 'remove reposts', where: ['x'] });
    // the process dies; a new one builds everything again over the same store
    const second = createFlowSessionStore(intake, { store, clock, draftSteps: ['goal'] });
    const resumed = await second.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect([resumed.session.step, resumed.session.version, resumed.session.data]).toEqual([
      'goal',
      2,
      { plan: 'p1' },
    ]);
    expect(await resumed.session.submit({ where: ['y'] })).toMatchObject({ ok: true, result: { ok: true } });
    expect(resumed.session.record()).toMatchObject({ flow: { state: 'confirm' }, draft: null });
  });

  it('waits for the stored due time of an effect retry, not a fresh delay', async () => {
    const { sessions, clock, store } = setup();
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    await start.session.submit(YES);
    const pending = start.session.perform(() => ({ audit_saved: false }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    start.session.close(); // the process dies while the retry waits
    await pending;
    const dueAt = (await sessions.resume('s1')).ok && start.session.retry?.dueAt;
    expect(dueAt).toBe(clock.now() + 1_000);
    clock.advance(400);
    const after = createFlowSessionStore(intake, { store, clock });
    const resumed = await after.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.session.mark).toBe('close_pending');
    const calls: { attempt: number; at: number }[] = [];
    const result = await drive(
      clock,
      resumed.session.perform((attempt) => {
        calls.push({ attempt, at: clock.now() });
        return { audit_saved: true };
      }),
    );
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(calls).toEqual([{ attempt: 2, at: dueAt }]);
  });

  it('refuses closed, running nothing, when the session closes while it waits for the stored due time', async () => {
    const { sessions, clock, store } = setup();
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    await start.session.submit(YES);
    const pending = start.session.perform(() => ({ audit_saved: false }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    start.session.close();
    await pending;
    const after = createFlowSessionStore(intake, { store, clock });
    const resumed = await after.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    let ran = 0;
    const waiting = resumed.session.perform(() => {
      ran += 1;
      return { audit_saved: true };
    });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    resumed.session.close(); // closed before the stored due time came
    expect(await waiting).toMatchObject({ ok: false, code: 'closed' });
    expect(ran).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs a retry at once when its stored due time passed while the process was down', async () => {
    const { sessions, clock } = setup();
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    await start.session.submit(YES);
    const pending = start.session.perform(() => ({ audit_saved: false }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    start.session.close();
    await pending;
    clock.advance(60_000);
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    const at = clock.now();
    const result = await resumed.session.perform(() => ({ audit_saved: clock.now() === at }));
    expect(result).toMatchObject({ ok: true, attempts: 2 });
  });

  it('refuses a session whose stored expiry passed during the restart', async () => {
    const { sessions, clock } = setup({ idleTimeoutMs: 1_000 });
    await sessions.start('s1', { data: null });
    clock.advance(1_000);
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'expired' });
  });
});

describe('records that cannot be resumed', () => {
  /** Patches the session's data in its kernel record (or, with `envelope`, the record around it). */
  async function stored(patch: Record<string, unknown>, envelope: Record<string, unknown> = {}) {
    const env = setup({ dataSchema: z.object({ plan: z.string() }).nullable() });
    await env.sessions.start('s1', { data: null });
    const record = (await env.store.get('flow-session:s1')) as { data: Record<string, unknown> };
    const data = { ...record.data, ...patch };
    await env.store.set('flow-session:s1', { ...record, data, ...envelope } as never);
    const reported: string[] = [];
    env.sessions.on('refused', (e) => reported.push(`${e.key} ${e.code}`));
    const result = await env.sessions.resume('s1');
    return { result, reported };
  }

  it.each([
    ['without a revision', { rev: 'one' }],
    ['of another session', { id: 's2' }],
    ['without savedAt', { savedAt: 'now' }],
    ['with a bad expiresAt', { expiresAt: 'later' }],
    ['with an unreachable flow snapshot', { state: 'close' }], // at close, no step answered
    ['with a draft of another step', { draft: { step: 'close', part: 0, fields: {} } }],
    ['with a retry of another step', { retry: { step: 'close', attempts: 1, dueAt: 5 } }],
    ['with data failing its schema', { data: { plan: 7 } }],
  ])('refuses and reports a record %s as corrupt_record', async (_, patch) => {
    const { result, reported } = await stored(patch);
    expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(reported).toEqual(['flow-session:s1 corrupt_record']);
  });

  it.each([
    ['of another kind', { kind: 'parley.other' }],
    ['that is not an object', { data: 'session' }],
  ])('refuses and reports a kernel record %s as corrupt_record', async (_, envelope) => {
    const { result, reported } = await stored({}, envelope);
    expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(reported).toEqual(['flow-session:s1 corrupt_record']);
  });

  it('refuses a kernel record of another record format as foreign_version', async () => {
    expect((await stored({}, { version: 6 })).result).toMatchObject({ ok: false, code: 'foreign_version' });
  });

  it.each([
    ['another flow', { machine: 'billing' }], // the snapshot's fields are the record's
    ['another flow version', { version: 9 }],
  ])('refuses a record of %s as foreign_version', async (_, patch) => {
    expect((await stored(patch)).result).toMatchObject({ ok: false, code: 'foreign_version' });
  });

  it('refuses not_found for a missing record and store_failed when the read throws', async () => {
    const { sessions, store } = setup();
    expect(await sessions.resume('nobody')).toMatchObject({ ok: false, code: 'not_found' });
    store.fail('getEntry', 1);
    expect(await sessions.resume('nobody')).toMatchObject({ ok: false, code: 'store_failed' });
  });
});

describe('options', () => {
  it('throws invalid_argument for too many retries, a bad delay or a bad idle timeout', () => {
    const store = createMemoryStore();
    const make = (options: object) => () => createFlowSessionStore(intake, { store, ...options });
    for (const options of [
      { saveRetryDelaysMs: Array(11).fill(1) },
      { effectRetryDelaysMs: [-1] },
      { idleTimeoutMs: 0 },
    ]) {
      const error = (() => {
        try {
          make(options)();
        } catch (err) {
          return err;
        }
      })();
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
  });

  it('keeps records under keyPrefix and a bounded history', async () => {
    const flow = defineFlow({
      id: 'one',
      version: 1,
      steps: [{ name: 'a', prompt: 'A?', fields: z.object({ a: z.string() }) }],
    });
    const store = createMemoryStore();
    const sessions = createFlowSessionStore(flow, { store, keyPrefix: 'app:', historyLimit: 0 });
    const start = await sessions.start('x', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit({ a: 'ok' });
    expect(sessions.keyOf('x')).toBe('app:x');
    expect(start.session.snapshot().history).toEqual([]);
    expect(start.session.key).toBe('app:x');
  });
});
