// When a handle may keep its record as text, and when it must keep it decoded: each case that holds
// a record back, and the hosts that never let go of one (a session busy in its turn, a handle of
// another sessions store). What comes back from the text is the record as it was.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createChatFlowHost,
  createFlowSessionStore,
  type FlowSessionStore,
  type StoredFlowSession,
} from '../src/index.js';
import { StoredSession } from '../src/stored-session.js';
import { decodeText } from '../src/stored-session-compact.js';
import { type Data, gate, NOTES, readField, signup, type Step as SignupStep } from './chat-helpers.js';
import { drive, GOAL, intake, setup, type Step, YES } from './stored-helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

type Handle = StoredSession<Step, Record<string, never>, unknown>;

async function started(sessions: ReturnType<typeof setup>['sessions'], id = 's1'): Promise<Handle> {
  const made = await sessions.start(id, { data: null });
  if (!made.ok) throw new Error(made.message);
  return made.session as Handle;
}

describe('a stored session kept as text', () => {
  it('keeps a resumed record decoded until its next write, which gives the text', async () => {
    const { sessions } = setup();
    await started(sessions);
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    const handle = resumed.session as Handle;
    expect(handle.compact()).toBe(false); // read from the store: no text of its own write
    expect((await handle.submit(GOAL)).ok).toBe(true);
    const before = handle.record();
    expect(handle.compact()).toBe(true);
    expect(handle.record()).toEqual(before);
  });

  it('keeps its record decoded while it waits on the clock for an effect retry', async () => {
    const { sessions, clock } = setup();
    const handle = await started(sessions);
    await handle.submit(GOAL);
    await handle.submit(YES);
    let attempt = 0;
    const pending = handle.perform(() => ({ audit_saved: ++attempt > 1 }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(handle.retry).not.toBeNull(); // the first attempt failed: the retry waits on the clock
    expect(handle.compact()).toBe(false);
    expect(await drive(clock, pending)).toMatchObject({ ok: true, attempts: 2 });
    expect(handle.compact()).toBe(true);
    expect(handle.step).toBe('done');
  });

  it('keeps a record it could not give the lease back on decoded: that record is leased', async () => {
    const { sessions, clock } = setup();
    const handle = await started(sessions);
    expect((await handle.acquire({ ttlMs: 1_000 })).ok).toBe(true);
    clock.advance(2_000); // the lease ran out, and another process takes the session
    const other = await sessions.resume('s1');
    if (!other.ok) throw new Error(other.message);
    expect((await other.session.acquire({ ttlMs: 1_000 })).ok).toBe(true);
    await handle.release(); // refused: the lease is another's now
    expect(handle.compact()).toBe(false);
    expect(await handle.submit(GOAL)).toMatchObject({ ok: false });
  });

  it('keeps a handle that lost a race decoded', async () => {
    const { sessions } = setup();
    const handle = await started(sessions);
    const other = await sessions.resume('s1');
    if (!other.ok) throw new Error(other.message);
    expect((await other.session.submit(GOAL)).ok).toBe(true);
    expect(await handle.submit(GOAL)).toMatchObject({ ok: false, code: 'conflict' });
    expect(handle.compact()).toBe(false);
  });

  it('throws on a text that does not read back as a record of the session', () => {
    const text = JSON.stringify({
      id: 's2',
      ...{ machine: 'intake', version: 1, state: 'goal', createdAt: '0' },
      rev: 1,
    });
    expect(() => decodeText(intake, 's1', text)).toThrow(
      /s1: the record its last write stored does not read back/,
    );
    const noRev = JSON.stringify({
      id: 's1',
      ...{ machine: 'intake', version: 1, state: 'goal', createdAt: '0' },
    });
    expect(() => decodeText(intake, 's1', noRev)).toThrow(/no revision/);
    const lost = JSON.stringify({
      id: 's1',
      ...{ machine: 'intake', version: 1, state: 'nowhere', createdAt: '0' },
      rev: 1,
    });
    expect(() => decodeText(intake, 's1', lost)).toThrow(/s1: .*flow snapshot is refused/);
    const good = JSON.stringify({
      id: 's1',
      ...{ machine: 'intake', version: 1, state: 'goal', createdAt: '0' },
      rev: 3,
    });
    expect(decodeText(intake, 's1', good)).toMatchObject({
      rev: 3,
      record: { id: 's1', flow: { state: 'goal' } },
    });
  });
});

describe('hosts that keep records decoded', () => {
  it('does not let go of a session busy in its turn when it falls out of the most recently used', async () => {
    const compact = vi.spyOn(StoredSession.prototype, 'compact');
    const held = gate();
    const sessions = createFlowSessionStore<SignupStep, unknown, Data>(signup, {
      store: (await import('@parley/core')).createMemoryStore(),
    });
    const host = createChatFlowHost<SignupStep, unknown, Data>({
      sessions,
      read: readField,
      maxDecodedSessions: 1,
      begin: async (ctx) => {
        if (ctx.id === 'c1') await held.promise; // c1's turn is under way while c2 starts
        return undefined;
      },
    });
    const first = host.start('c1', NOTES);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await host.start('c2', NOTES)).toMatchObject({ ok: true });
    expect(compact).not.toHaveBeenCalled(); // c1 fell out, busy
    held.open();
    expect(await first).toMatchObject({ ok: true, step: 'email' });
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
  });

  it('leaves the handles of another sessions store as they are', async () => {
    const compact = vi.spyOn(StoredSession.prototype, 'compact');
    const inner = createFlowSessionStore<SignupStep, unknown, Data>(signup, {
      store: (await import('@parley/core')).createMemoryStore(),
    });
    // a store of the host user's own: its handles are not this package's (they forward to one)
    const wrap = (session: StoredFlowSession<SignupStep, unknown, Data>) =>
      new Proxy(session, {
        getPrototypeOf: () => Object.prototype,
        get: (target, key) => {
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const sessions: FlowSessionStore<SignupStep, unknown, Data> = {
      ...inner,
      start: async (id, options) => {
        const made = await inner.start(id, options);
        return made.ok ? { ...made, session: wrap(made.session) } : made;
      },
    };
    const host = createChatFlowHost<SignupStep, unknown, Data>({
      sessions,
      read: readField,
      maxDecodedSessions: 1,
    });
    for (const id of ['c1', 'c2', 'c3']) expect(await host.start(id, NOTES)).toMatchObject({ ok: true });
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(compact).not.toHaveBeenCalled();
  });
});
