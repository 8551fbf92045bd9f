// A record of format 3 (the previous release's: the snapshot without what a new run starts with,
// its history whole, `savedAt` always) is still read by format 3's rules and written back as format
// 4; format 4's own shortenings (the history as one flat list of [from, event, ms after createdAt]
// triples, `updatedAt` and `savedAt` left out when they are the last move's time) are read back
// whole, and a history with an entry they cannot carry exactly is stored whole.
import { createManualClock, createMemoryStore, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFlowSessionStore } from '../src/index.js';
import { GOAL, intake, setup } from './stored-helpers.js';

const KEY = 'flow-session:s1';

/** A record of format 3 as the previous release stored it: session s1 answered its goal at 1_000_005. */
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

/** `FORMAT_3` with `patch` written over its data (`undefined` leaves a field out). */
function format3(patch: Record<string, unknown>, flow: Record<string, unknown> = {}): JsonValue {
  const data = { ...FORMAT_3.data, flow: { ...FORMAT_3.data.flow, ...flow }, ...patch };
  return JSON.parse(JSON.stringify({ ...FORMAT_3, data })) as JsonValue;
}

describe('a record of format 3', () => {
  it('is read, and its next write stores it as format 4 with one compare-and-set', async () => {
    const { sessions, store, clock } = setup();
    await store.set(KEY, FORMAT_3 as unknown as JsonValue);
    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    const { session } = resumed;
    expect(session.record()).toMatchObject({ savedAt: 1_000_005, flow: { updatedAt: 1_000_005 } });
    expect(session.record().flow.history).toEqual(FORMAT_3.data.flow.history);
    clock.advance(7); // 2 ms after the goal's answer
    expect(await session.submit({ confirm: 'YES' })).toMatchObject({ ok: true, version: 2 });
    expect(await store.get(KEY)).toMatchObject({
      version: 4,
      data: {
        flow: {
          state: 'close',
          history: ['goal', 'submit', 5, 'confirm', 'submit', 7],
        },
        rev: 3,
      },
    });
    const again = await sessions.resume('s1');
    expect(again.ok && again.session.record()).toEqual(session.record());
  });

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
    const { sessions, store } = setup();
    const value = format3({ savedAt: undefined });
    await store.set(KEY, value);
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await store.get(KEY)).toEqual(value);
  });

  it('is refused lease_held while another owner holds its lease, and exists to start', async () => {
    const { sessions, store } = setup();
    const lease = { owner: 'elsewhere', token: 2, expiresAt: 1_030_000 };
    const held = { ...FORMAT_3, lease, fence: 2 } as unknown as JsonValue;
    await store.set(KEY, held);
    expect(await sessions.resume('s1')).toMatchObject({ ok: false, code: 'lease_held' });
    expect(await sessions.start('s1', { data: null })).toMatchObject({ ok: false, code: 'exists' });
    expect(await store.get(KEY)).toEqual(held);
  });
});

describe('the stored record (format 4)', () => {
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
    expect(stored.data).toMatchObject({ savedAt: 1_000_008, flow: { history: ['goal', 'submit', 5] } });
    expect(stored.data.flow).not.toHaveProperty('updatedAt');
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
    const stored = (await store.get(KEY)) as { data: { flow: Record<string, JsonValue> } };
    const entry = { from: 'goal', to: 'confirm', event: 'submit', at: 1_000_000.25 };
    expect(stored.data.flow.history).toEqual([entry]);
    const resumed = await sessions.resume('s1');
    expect(resumed.ok && resumed.session.record()).toEqual(start.session.record());
  });
});
