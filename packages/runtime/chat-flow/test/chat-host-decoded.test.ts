// Open sessions past the most recently used `maxDecodedSessions` keep their record as the JSON text
// their last write stored, and decode it again when their chat comes back. Nothing a host, a store
// or a replica sees may differ from a host that keeps every record decoded: each case runs the same
// script on both and compares everything observable, and checks that records were in fact let go.
import { createManualClock, createMemoryStore, isParleyError, type Store } from '@parley/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ChatFlowHost,
  type ChatFlowResult,
  createChatFlowHost,
  createFlowSessionStore,
  DEFAULT_MAX_DECODED_SESSIONS,
  type StoredFlowSession,
} from '../src/index.js';
import { StoredSession } from '../src/stored-session.js';
import {
  createRig,
  type Data,
  NOTES,
  type Options,
  type Rig,
  readField,
  signup,
  type Step,
} from './chat-helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every record a store holds under the sessions' prefix, as stored. */
async function records(store: Store): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const entry of store.list('flow-session:')) all.push([entry.key, entry.version, entry.value]);
  return all;
}

/** A host that mails a welcome (a claimed effect) once the plan is chosen and notes each reply in its data. */
const busyHost = (rig: Rig, more: Options): ChatFlowHost<Data> =>
  rig.open({
    after: async (done, ctx) => {
      ctx.setData({ notes: [...ctx.data.notes, `done ${done.step}`] });
      if (done.step === 'plan') await ctx.effect('welcome', () => 'sent');
    },
    ...more,
  });

/** Runs `script` on a host that keeps one session decoded and on one that keeps all of them. */
async function both(
  script: (host: ChatFlowHost<Data>, rig: Rig) => Promise<unknown[]>,
  more: Options = {},
): Promise<{ compacted: number; one: unknown; all: unknown }> {
  const compact = vi.spyOn(StoredSession.prototype, 'compact');
  const run = async (maxDecodedSessions: number) => {
    const rig = createRig();
    const results = await script(busyHost(rig, { maxDecodedSessions, ...more }), rig);
    return { results, asked: rig.asked, events: rig.events, stored: await records(rig.store) };
  };
  const one = await run(1);
  const compacted = compact.mock.results.filter((r) => r.value === true).length;
  compact.mockClear();
  const all = await run(1_000);
  expect(compact).not.toHaveBeenCalled(); // the second host never lets a record go
  return { compacted, one, all };
}

describe('chat-flow host: sessions kept as text', () => {
  it('answers every chat as a host that keeps all records decoded, with records let go meanwhile', async () => {
    const { compacted, one, all } = await both(async (host) => {
      const out: ChatFlowResult[] = [];
      for (const id of ['c1', 'c2', 'c3']) out.push(await host.start(id, NOTES));
      for (const id of ['c1', 'c2', 'c3'])
        out.push(await host.reply(id, 'ada@example.org', { messageId: `${id}-1` }));
      out.push(await host.reply('c1', 'ada@example.org', { messageId: 'c1-1' })); // delivered twice
      out.push(await host.reply('c2', 'gold', { messageId: 'c2-2' })); // not a plan: refused by the step
      for (const id of ['c3', 'c1', 'c2']) out.push(await host.reply(id, 'pro', { messageId: `${id}-3` }));
      for (const id of ['c2', 'c3', 'c1']) out.push(await host.reply(id, 'YES', { messageId: `${id}-4` }));
      return out;
    });
    expect(compacted).toBeGreaterThanOrEqual(6);
    expect(one).toEqual(all);
    expect((one as { results: ChatFlowResult[] }).results.at(-1)).toMatchObject({ ok: true, step: 'done' });
  });

  it('reads nothing more from the store for a chat that comes back', async () => {
    const reads = { one: 0, all: 0 };
    for (const [name, maxDecodedSessions] of [
      ['one', 1],
      ['all', 1_000],
    ] as const) {
      const rig = createRig();
      const getEntry = rig.store.getEntry;
      rig.store.getEntry = (key) => {
        reads[name]++;
        return getEntry(key);
      };
      const host = busyHost(rig, { maxDecodedSessions });
      await host.start('c1', NOTES);
      await host.start('c2', NOTES); // c1 is no longer the most recently used
      await host.reply('c1', 'ada@example.org', { messageId: 'm1' });
      await host.start('c3', NOTES);
      await host.reply('c1', 'pro', { messageId: 'm2' });
    }
    expect(reads.one).toBe(reads.all);
  });

  it('refuses, retries and races on a record kept as text exactly as on a decoded one', async () => {
    const { compacted, one, all } = await both(async (host, rig) => {
      const out: unknown[] = [await host.start('c1', NOTES), await host.start('c2', NOTES)];
      rig.store.fail('compareAndSet', 1); // the returning chat's write fails once, then is retried
      out.push(await host.reply('c1', 'ada@example.org', { messageId: 'm1' }));
      out.push(await host.start('c3', NOTES));
      // another replica answers c1 meanwhile: the held record (text or decoded) is stale
      const other = busyHost(rig, {});
      out.push(await other.reply('c1', 'free', { messageId: 'm2' }));
      out.push(await host.reply('c1', 'pro', { messageId: 'm3' }));
      out.push(await host.reply('c1', 'YES', { messageId: 'm4' }));
      rig.clock.advance(1_000);
      out.push(await host.reply('c2', 'ada@example.org', { messageId: 'm5' }));
      return out;
    });
    expect(compacted).toBeGreaterThanOrEqual(2);
    expect(one).toEqual(all);
  });

  it('gives a handle held by the host user the same record and answers after its record was let go', async () => {
    const handles = new Map<string, StoredFlowSession<Step, unknown, Data>>();
    const rig = createRig();
    const host = busyHost(rig, { maxDecodedSessions: 1, attach: (s) => void handles.set(s.id, s) });
    await host.start('c1', NOTES);
    await host.reply('c1', 'ada@example.org', { messageId: 'm1' });
    const c1 = handles.get('c1') as StoredSession<Step, unknown, Data>;
    const before = {
      record: c1.record(),
      step: c1.step,
      fields: c1.fields,
      data: c1.data,
      version: c1.version,
    };
    await host.start('c2', NOTES);
    expect(c1.compact()).toBe(true); // already let go when c2 became the most recently used
    expect({
      record: c1.record(),
      step: c1.step,
      fields: c1.fields,
      data: c1.data,
      version: c1.version,
    }).toEqual(before);
    expect(c1.record()).not.toBe(before.record); // decoded again, from the text
  });

  it('lets go of no record while a write of it is under way or its lease is held', async () => {
    const clock = createManualClock({ now: 5_000 });
    const sessions = createFlowSessionStore<Step, unknown, Data>(signup, {
      store: createMemoryStore({ clock }),
      clock,
    });
    const started = await sessions.start('c1', { data: NOTES });
    if (!started.ok) throw new Error('not started');
    const session = started.session as StoredSession<Step, unknown, Data>;
    expect((await session.acquire({ ttlMs: 1_000 })).ok).toBe(true);
    expect(session.compact()).toBe(false); // leased
    const writing = session.submit({ email: 'ada@example.org' }, { release: true });
    expect(session.compact()).toBe(false); // a write is under way
    expect((await writing).ok).toBe(true);
    expect(session.compact()).toBe(true);
    expect(session.step).toBe('plan');
    const next = await session.submit({ plan: 'pro' });
    expect(next.ok && next.result.ok).toBe(true);
    expect((await sessions.resume('c1')).ok && session.step).toBe('confirm');
  });

  it('refuses a maxDecodedSessions that is not a positive integer', () => {
    const sessions = createFlowSessionStore<Step, unknown, Data>(signup, { store: createMemoryStore() });
    for (const maxDecodedSessions of [0, -1, 1.5, Number.NaN]) {
      let thrown: unknown;
      try {
        createChatFlowHost({ sessions, read: readField, maxDecodedSessions });
      } catch (error) {
        thrown = error;
      }
      expect(isParleyError(thrown, 'invalid_argument')).toBe(true);
    }
    expect(DEFAULT_MAX_DECODED_SESSIONS).toBe(64);
  });
});
