// The stored record's format 5: the flow snapshot's fields are stored in the record itself, without
// those whose value is the one a new run starts with, its history as flat [from, event, ms after
// createdAt] triples, its times as their text (read back whole and checked like any snapshot); a
// record of format 2 (the whole snapshot) is still read and written back as format 5; a corrupt
// record is refused and left as it is; a later format is foreign. Formats 4 and 3, and format 5's
// times: stored-session-formats.test.ts.
import { createManualClock, createMemoryStore, type JsonValue } from '@parley/core';
import { defineFlow } from '@parley/fsm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFlowSessionStore, FLOW_SESSION_RECORD_FORMAT } from '../src/index.js';
import { GOAL, setup } from './stored-helpers.js';

const KEY = 'flow-session:s1';

/** A record of format 2 as the previous release stored it: session s1 answered its goal at 1_000_005. */
const FORMAT_2 = {
  kind: 'parley.fsm.session',
  version: 2,
  data: {
    id: 's1',
    flow: {
      ...{ machine: 'intake', version: 1, state: 'confirm', context: {}, done: false },
      ...{ createdAt: 1_000_000, updatedAt: 1_000_005, deadlines: [] },
      history: [{ from: 'goal', to: 'confirm', event: 'submit', at: 1_000_005 }],
      status: 'active',
      fields: { goal: { goal: 'remove reposts', where: ['x', 'y'] } },
      ...{ part: 0, attempts: {}, mark: null, notices: [], reviews: [] },
    },
    ...{ draft: null, data: { user: 'ann' }, retry: null, expiresAt: null, savedAt: 1_000_005, rev: 2 },
  },
  ...{ lease: null, fence: 0, deadlineAt: null },
} as const;

/** `record` with `patch` written over its data's flow snapshot. */
function withFlow(record: { readonly data: { readonly flow: object } }, patch: Record<string, JsonValue>) {
  return { ...record, data: { ...record.data, flow: { ...record.data.flow, ...patch } } } as JsonValue;
}

describe('the stored record (format 5)', () => {
  it('leaves out of the flow snapshot what a new run starts with, and reads it back whole', async () => {
    const { sessions, store, clock } = setup();
    const start = await sessions.start('s1', { data: { user: 'ann' } });
    if (!start.ok) throw new Error(start.message);
    expect(FLOW_SESSION_RECORD_FORMAT).toBe(5);
    expect(await store.get(KEY)).toEqual({
      kind: 'parley.fsm.session',
      version: 5,
      data: {
        ...{ id: 's1', machine: 'intake', version: 1, state: 'goal', createdAt: '1000000' },
        data: { user: 'ann' },
        rev: 1,
      },
      ...{ lease: null, fence: 0, deadlineAt: null },
    });
    clock.advance(5);
    await start.session.submit(GOAL);
    expect((await store.get(KEY)) as JsonValue).toEqual({
      ...FORMAT_2,
      version: 5,
      data: format5Of(FORMAT_2),
    });
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.session.record()).toEqual(start.session.record());
  });

  it('stores what differs from a new run: a draft, a retry, an expiry, a mark and attempts', async () => {
    const { sessions, store, clock } = setup({ idleTimeoutMs: 60_000, effectRetryDelaysMs: [] });
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    const { session } = start;
    await session.submit({ goal: 'remove reposts' }); // kept as the goal's draft
    expect(await store.get(KEY)).toMatchObject({
      data: { draft: { step: 'goal', part: 0, fields: { goal: 'remove reposts' } }, expiresAt: '1060000' },
    });
    await session.submit(GOAL);
    await session.submit({ confirm: 'YES' });
    clock.advance(1);
    await session.submit({ audit_saved: false }); // the retry policy marks the session and counts
    const stored = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    expect(stored.data).toMatchObject({ mark: 'close_pending', attempts: { close: 1 } });
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.session.record()).toEqual(session.record());
  });
});

describe('a record of format 2 (the whole snapshot)', () => {
  it('is read, and its next write stores it as format 5', async () => {
    const { sessions, store } = setup();
    await store.set(KEY, FORMAT_2 as unknown as JsonValue);
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.session).toMatchObject({ step: 'confirm', data: { user: 'ann' }, version: 1 });
    const answer = await resumed.session.submit({ confirm: 'YES' });
    expect(answer).toMatchObject({ ok: true, result: { ok: true, next: 'close' } });
    const stored = (await store.get(KEY)) as { version: number; data: { rev: number } };
    expect(stored).toMatchObject({ version: 5, data: { rev: 3, state: 'close', createdAt: '1000000' } });
    expect(stored.data).not.toHaveProperty('reviews');
    expect(stored.data).not.toHaveProperty('flow');
  });

  it('is refused lease_held while another owner holds its lease, and taken once it expired', async () => {
    const { sessions, store, clock } = setup();
    const lease = { owner: 'elsewhere', token: 4, expiresAt: clock.now() + 30_000 };
    const held = { ...FORMAT_2, lease, fence: 4 } as unknown as JsonValue;
    await store.set(KEY, held);
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'lease_held' });
    expect(await store.get(KEY)).toEqual(held);
    clock.advance(30_000);
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(await resumed.session.acquire({ ttlMs: 1_000 })).toMatchObject({ ok: true });
    const stored = (await store.get(KEY)) as { version: number; fence: number; lease: { token: number } };
    expect(stored).toMatchObject({ version: 5, fence: 5, lease: { token: 5 } }); // the fence goes on
  });

  it('is a stored session to start: refused exists and left as it is', async () => {
    const { sessions, store } = setup();
    await store.set(KEY, FORMAT_2 as unknown as JsonValue);
    expect(await sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'exists' });
    expect((await store.get(KEY)) as JsonValue).toEqual(FORMAT_2);
  });

  it('is refused corrupt_record when its snapshot or its envelope is not one, and left as it is', async () => {
    const skipped = withFlow(FORMAT_2, { fields: {} }); // at confirm without the goal's answers
    const fenceless = { ...FORMAT_2, fence: -1 } as unknown as JsonValue;
    const ownerless = { ...FORMAT_2, lease: { token: 1, expiresAt: 0 } } as unknown as JsonValue;
    const timeless = { ...FORMAT_2, deadlineAt: 'soon' } as unknown as JsonValue;
    for (const value of [skipped, fenceless, ownerless, timeless]) {
      const { sessions, store } = setup();
      await store.set(KEY, value);
      expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
      expect(await store.get(KEY)).toEqual(value);
    }
  });

  it('is refused store_failed when the store fails while it is read again', async () => {
    const { sessions, store } = setup();
    await store.set(KEY, FORMAT_2 as unknown as JsonValue);
    const getEntry = store.getEntry.bind(store);
    let reads = 0;
    store.getEntry = async (key) => {
      reads += 1;
      if (reads === 2) throw new Error('getEntry is down');
      return getEntry(key);
    };
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'store_failed' });
    expect(await sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'exists' });
  });
});

describe('a corrupt record of format 5', () => {
  it('is refused: what is left out is not a licence to leave out what the flow needs', async () => {
    const { sessions, store } = setup();
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    start.session.close();
    const record = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    const { fields: _fields, ...noFields } = record.data; // at confirm, the goal's answers gone
    const { createdAt: _createdAt, ...noTime } = record.data;
    const { machine: _machine, ...noMachine } = record.data;
    const history = (stored: JsonValue) => ({ ...record.data, history: stored });
    const flows = [noFields, noTime, noMachine, { ...record.data, done: true }];
    // a flat history entry without its event, of no step, at no time; no list; an entry stored whole that is not one
    const histories = [
      ['goal', 5],
      ['nowhere', 'submit', 5],
      ['goal', 'submit', '5'],
      'goal',
      [{ from: 'goal' }],
    ];
    for (const data of [...flows, ...histories.map(history)]) {
      const value = { ...record, data } as JsonValue;
      await store.set(KEY, value);
      expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
      expect(await store.get(KEY)).toEqual(value);
    }
  });
});

describe('every field a run can hold', () => {
  const rich = defineFlow({
    id: 'rich',
    version: 1,
    steps: [
      {
        name: 'pick',
        prompt: 'Pick',
        parts: [
          { prompt: 'A?', fields: z.object({ a: z.string() }) },
          { prompt: 'B?', fields: z.object({ b: z.string() }) },
        ],
      },
      {
        name: 'mode',
        prompt: 'Mode?',
        fields: z.object({ mode: z.enum(['x', 'y']) }),
        onFailure: { action: 'default', value: { mode: 'x' }, message: 'x it is' },
      },
      {
        name: 'check',
        prompt: 'Check?',
        fields: z.object({ ok: z.literal(true) }),
        onFailure: { action: 'manual_review', queue: 'ops', message: 'handed to ops' },
      },
      {
        name: 'sign',
        prompt: 'Sign?',
        fields: z.object({ signed: z.literal(true) }),
        onFailure: { action: 'block', message: 'blocked', mark: 'unsigned' },
      },
    ],
  });

  it('stores what differs from a new run and reads back the record it wrote, at every step', async () => {
    const clock = createManualClock({ now: 5_000 });
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(rich, { store, clock });
    const start = await sessions.start('r1', { data: { n: 1 }, context: { lang: 'en' } as never });
    if (!start.ok) throw new Error(start.message);
    const { session } = start;
    const answers = [{ a: 'a' }, { b: 'b' }, { mode: 'z' }, { ok: false }, { ok: true }, { signed: false }];
    const kept: string[][] = [];
    for (const answer of answers) {
      clock.advance(1);
      const written = await session.submit(answer);
      expect(written).toMatchObject({ ok: true });
      const stored = (await store.get('flow-session:r1')) as { data: object };
      kept.push(Object.keys(stored.data));
      const resumed = await sessions.resume('r1');
      if (!resumed.ok) throw new Error(resumed.message);
      expect(resumed.session.record()).toEqual(session.record());
    }
    expect(kept[0]).toEqual([
      'id',
      'machine',
      'version',
      'state',
      'context',
      'createdAt',
      'updatedAt',
      'fields',
      'part',
      'data',
      'rev',
    ]);
    expect(kept.at(-1)).toEqual(
      expect.arrayContaining(['history', 'status', 'attempts', 'mark', 'notices', 'reviews']),
    );
    expect(session.status).toBe('blocked');
  });

  it('leaves out done and status of a finished run: both follow from its state', async () => {
    const { sessions, store } = setup();
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    for (const answer of [GOAL, { confirm: 'YES' }, { audit_saved: true }])
      await start.session.submit(answer);
    const stored = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    expect(stored.data).toMatchObject({ state: 'done' });
    expect(Object.keys(stored.data)).not.toContain('done');
    expect(Object.keys(stored.data)).not.toContain('status');
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.done).toBe(true);
  });
});

/**
 * The data of a format-2 record as format 5 stores it: the snapshot's fields in the record, what a
 * new run starts with left out, the history as flat [from, event, ms after createdAt] triples,
 * `updatedAt` and `savedAt` (the last move's time) left out, the creation time as its text.
 */
function format5Of(record: typeof FORMAT_2): JsonValue {
  const { id, flow, data, rev } = record.data;
  const { machine, version, state, createdAt, fields } = flow;
  const history = ['goal', 'submit', 5];
  return {
    ...{ id, machine, version, state, createdAt: String(createdAt), history, fields },
    ...{ data, rev },
  } as unknown as JsonValue;
}
