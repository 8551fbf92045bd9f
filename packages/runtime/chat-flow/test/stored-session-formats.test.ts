// Records of formats 4 (the snapshot under `flow`, its times as numbers) and 3 (the snapshot without
// what a new run starts with, its history whole, `savedAt` always) are still read, each by its own
// rules, and written back as format 5; format 5's own shortenings (the history as one flat list of
// [from, event, ms after createdAt] triples, `updatedAt` and `savedAt` left out when they are the
// last move's time, the record's times as their text) are read back whole, a history with an entry
// they cannot carry exactly is stored whole, and a time whose text no number writes is refused.
import { createManualClock, createMemoryStore, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFlowSessionStore } from '../src/index.js';
import { GOAL, intake, setup } from './stored-helpers.js';

const KEY = 'flow-session:s1';

/** A record of format 3 as an earlier build stored it: session s1 answered its goal at 1_000_005. */
const FORMAT_3 = {
  kind: 'parley.fsm.session',
  version: 3,
  data: {
    id: 's1',
    flow: {
      ...{ machine: 'intake', version: 1, state: 'confirm', createdAt: 1_000_000, updatedAt: 1_000_005 },
      history: [{ from: 'goal', to: 'confirm', event: 'submit', at: 1_000_005 }],
      fields: { goal: { goal: 'remove reposts', where: ['x', 'y'] } },
    },
    ...{ data: { user: 'ann' }, savedAt: 1_000_005, rev: 2 },
  },
  ...{ lease: null, fence: 0, deadlineAt: null },
} as const;

/** A record of format 4 as the release before stored it: session s1 answered its goal at 1_000_005. */
const FORMAT_4 = {
  kind: 'parley.fsm.session',
  version: 4,
  data: {
    id: 's1',
    flow: {
      ...{ machine: 'intake', version: 1, state: 'confirm', createdAt: 1_000_000 },
      history: ['goal', 'submit', 5],
      fields: { goal: { goal: 'remove reposts', where: ['x', 'y'] } },
    },
    ...{ data: { user: 'ann' }, rev: 2 },
  },
  ...{ lease: null, fence: 0, deadlineAt: null },
} as const;

/**
 * `record` (a former one) with `patch` written over its data and `flow` over its snapshot
 * (`undefined` leaves a field out).
 */
function patched(
  record: typeof FORMAT_3 | typeof FORMAT_4,
  patch: Record<string, unknown>,
  flow: Record<string, unknown> = {},
): JsonValue {
  const data = { ...record.data, flow: { ...record.data.flow, ...flow }, ...patch };
  return JSON.parse(JSON.stringify({ ...record, data })) as JsonValue;
}
const format3 = (patch: Record<string, unknown>, flow?: Record<string, unknown>) =>
  patched(FORMAT_3, patch, flow);
const format4 = (patch: Record<string, unknown>, flow?: Record<string, unknown>) =>
  patched(FORMAT_4, patch, flow);

/** Stores `value` at the session's key, and checks that `resume` refuses it corrupt_record and leaves it as it is. */
async function refusedCorrupt(
  { sessions, store }: ReturnType<typeof setup>,
  value: JsonValue,
): Promise<void> {
  await store.set(KEY, value);
  expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
  expect(await store.get(KEY)).toEqual(value);
}

describe('a record of format 3', () => {
  it('is read by its own rules: an updatedAt left out is the creation time, whatever the history', async () => {
    const { sessions, store } = setup();
    await store.set(KEY, format3({}, { updatedAt: undefined }));
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.record()).toMatchObject({
      savedAt: 1_000_005,
      flow: { createdAt: 1_000_000, updatedAt: 1_000_000 },
    });
  });

  it('is refused corrupt_record without savedAt (format 3 always stored it), and left as it is', async () => {
    await refusedCorrupt(setup(), format3({ savedAt: undefined }));
  });
});

describe('the stored record (format 5)', () => {
  it('stores savedAt and updatedAt only when they are not the last move’s time', async () => {
    const { sessions, store, clock } = setup();
    const start = await sessions.start('s1', { data: { user: 'ann' } });
    if (!start.ok) throw new Error(start.message);
    const { session } = start;
    clock.advance(5);
    await session.submit(GOAL);
    clock.advance(3);
    await session.update({ user: 'bob' }); // a write with no move
    const stored = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    expect(stored.data).toMatchObject({ savedAt: '1000008', history: ['goal', 'submit', 5] });
    expect(stored.data).not.toHaveProperty('updatedAt');
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.record()).toEqual(session.record());
  });

  it('stores whole a history entry whose time is not a whole number of ms after the creation', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(intake, { store, clock });
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    clock.advance(0.25);
    await start.session.submit(GOAL);
    const stored = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    const entry = { from: 'goal', to: 'confirm', event: 'submit', at: 1_000_000.25 };
    expect(stored.data.history).toEqual([entry]);
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.record()).toEqual(start.session.record());
  });
});

describe('the record’s times (format 5)', () => {
  it('are stored as their text and read back as the numbers they were, fractions too', async () => {
    const clock = createManualClock({ now: 1_000_000.5 });
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(intake, { store, clock, idleTimeoutMs: 60_000 });
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    clock.advance(5);
    await start.session.submit(GOAL);
    clock.advance(3);
    await start.session.update(null); // a write with no move: savedAt is not the last move's time
    const stored = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    expect(stored.data).toMatchObject({
      ...{ createdAt: '1000000.5', savedAt: '1000008.5', expiresAt: '1060008.5' },
      history: ['goal', 'submit', 5],
    });
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.session.record()).toEqual(start.session.record());
    expect(resumed.session.record()).toMatchObject({
      ...{ savedAt: 1_000_008.5, expiresAt: 1_060_008.5 },
      flow: { createdAt: 1_000_000.5, updatedAt: 1_000_005.5 },
    });
  });

  it('are refused corrupt_record when their text is not the one a number writes, and left as they are', async () => {
    const env = setup({ idleTimeoutMs: 60_000 });
    const { sessions, store } = env;
    const start = await sessions.start('s1', { data: null });
    if (!start.ok) throw new Error(start.message);
    await start.session.submit(GOAL);
    start.session.close();
    const record = (await store.get(KEY)) as { data: Record<string, JsonValue> };
    expect(record.data).toMatchObject({ createdAt: '1000000', expiresAt: '1060000' });
    const patches: Record<string, JsonValue>[] = [
      ...['1e6', '01000000', ' 1000000', '1000000.0', 'soon', ''].map((createdAt) => ({ createdAt })),
      { updatedAt: 'later' },
      { savedAt: '1_000_000' },
      { expiresAt: '0x10' },
    ];
    for (const patch of patches) {
      await refusedCorrupt(env, { ...record, data: { ...record.data, ...patch } } as JsonValue);
    }
  });
});

describe('a record of format 4', () => {
  it('is read by its own rules: its times are numbers, and what it stored is kept', async () => {
    const env = setup();
    const { sessions, store } = env;
    await store.set(KEY, format4({ savedAt: 1_000_009, expiresAt: 1_060_000 }, { updatedAt: 1_000_007 }));
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.record()).toMatchObject({
      ...{ savedAt: 1_000_009, expiresAt: 1_060_000 },
      flow: { createdAt: 1_000_000, updatedAt: 1_000_007 },
    });
    // text where format 4 stored a number
    await refusedCorrupt(env, format4({}, { createdAt: '1000000' }));
    await refusedCorrupt(env, format4({ savedAt: '1000005' }));
  });

  it('is refused corrupt_record when its snapshot is not one (at confirm with no answers), and left as it is', async () => {
    const env = setup();
    const value = format4({}, { fields: undefined });
    await refusedCorrupt(env, value);
    expect(await env.sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'exists' });
    expect(await env.store.get(KEY)).toEqual(value);
  });
});

describe('a record of a former format', () => {
  it.each([
    [3, FORMAT_3],
    [4, FORMAT_4],
  ])(
    'of format %i is read, and its next write stores it as format 5 with one compare-and-set',
    async (_, record) => {
      const { sessions, store, clock } = setup();
      await store.set(KEY, record as unknown as JsonValue);
      const resumed = await sessions.resume('s1');
      if (!resumed.ok) throw new Error(resumed.message);
      const { session } = resumed;
      expect(session.record()).toMatchObject({
        ...{ savedAt: 1_000_005, expiresAt: null, draft: null, retry: null },
        flow: { createdAt: 1_000_000, updatedAt: 1_000_005, fields: record.data.flow.fields },
      });
      expect(session.record().flow.history).toEqual([
        { from: 'goal', to: 'confirm', event: 'submit', at: 1_000_005 },
      ]);
      clock.advance(7); // 2 ms after the goal's answer
      expect(await session.submit({ confirm: 'YES' })).toMatchObject({ ok: true, version: 2 });
      const stored = (await store.get(KEY)) as { version: number; data: Record<string, JsonValue> };
      expect(stored).toMatchObject({
        version: 5,
        data: {
          state: 'close',
          createdAt: '1000000',
          history: ['goal', 'submit', 5, 'confirm', 'submit', 7],
          rev: 3,
        },
      });
      expect(stored.data).not.toHaveProperty('flow');
      const again = await sessions.resume('s1');
      expect(again.ok && again.session.record()).toEqual(session.record());
    },
  );

  it.each([
    [3, FORMAT_3],
    [4, FORMAT_4],
  ])(
    'of format %i is refused lease_held while another owner holds its lease, and exists to start',
    async (_, record) => {
      const { sessions, store } = setup();
      const lease = { owner: 'elsewhere', token: 2, expiresAt: 1_030_000 };
      const held = { ...record, lease, fence: 2 } as unknown as JsonValue;
      await store.set(KEY, held);
      expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'lease_held' });
      expect(await sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'exists' });
      expect(await store.get(KEY)).toEqual(held);
    },
  );
});
