import { createManualClock, createMemoryStore, isParleyError, stringifyJson } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  defineMachine,
  FSM_ERROR_CODES,
  type FsmErrorCode,
  requestMachine,
} from '../src/index.js';
import { orderMachine } from './helpers.js';

function codeOf(run: () => unknown): FsmErrorCode | undefined {
  try {
    run();
  } catch (error) {
    if (isParleyError<FsmErrorCode>(error)) return error.code;
    throw error;
  }
  return undefined;
}

const snapshotOf = () => {
  const actor = createActor(orderMachine, { clock: createManualClock({ now: 100 }) });
  actor.send('add');
  return JSON.parse(JSON.stringify(actor.snapshot())) as Record<string, unknown>;
};

describe('snapshots', () => {
  it('are plain JSON that survive a Store round trip', async () => {
    const store = createMemoryStore();
    const actor = createActor(orderMachine, { clock: createManualClock({ now: 100 }) });
    actor.send('add');
    actor.send('submit');
    await store.set('order:1', actor.snapshot());
    const restored = createActor(orderMachine, {
      clock: createManualClock({ now: 200 }),
      snapshot: await store.get('order:1'),
    });
    expect(restored.state).toBe('review');
    expect(restored.snapshot()).toEqual(actor.snapshot());
    expect(() => stringifyJson(actor.snapshot())).not.toThrow();
  });

  it('restore from JSON text', () => {
    const text = JSON.stringify(snapshotOf());
    expect(orderMachine.restore(text).context).toEqual({ items: 1, paid: false });
  });

  it('refuse a done flag that does not fit the state', () => {
    expect(codeOf(() => orderMachine.restore({ ...snapshotOf(), done: true }))).toBe('invalid_snapshot');
    expect(orderMachine.restore(snapshotOf()).done).toBe(false);
  });
});

describe('restore refusals', () => {
  it.each([
    ['text that is not JSON', '{"machine":'],
    ['a value that is not an object', 42],
    ['a machine id that is not a string', { ...snapshotOf(), machine: 1 }],
    ['a version that is not an integer', { ...snapshotOf(), version: '2' }],
    ['a state that is not a string', { ...snapshotOf(), state: null }],
    ['timestamps that are not numbers', { ...snapshotOf(), createdAt: 'yesterday' }],
    ['a missing context', (({ context: _c, ...rest }) => rest)(snapshotOf())],
    ['malformed deadlines', { ...snapshotOf(), deadlines: [{ at: 'soon' }] }],
    ['malformed history', { ...snapshotOf(), history: [{ from: 'draft' }] }],
    ['a context that is not JSON', { ...snapshotOf(), context: { at: new Date(0) } }],
    [
      'a deadline of a timeout the state does not have',
      { ...snapshotOf(), deadlines: [{ at: 5, event: 'timeout' }] },
    ],
  ])('refuses %s with invalid_snapshot', (_name, value) => {
    expect(codeOf(() => orderMachine.restore(value))).toBe('invalid_snapshot');
  });

  it('refuses a snapshot of another machine with wrong_machine', () => {
    expect(codeOf(() => orderMachine.restore({ ...snapshotOf(), machine: 'invoice' }))).toBe('wrong_machine');
  });

  it('refuses another version without a migrate hook with version_mismatch', () => {
    expect(codeOf(() => orderMachine.restore({ ...snapshotOf(), version: 1 }))).toBe('version_mismatch');
  });

  it('refuses an unknown state with unknown_state', () => {
    expect(codeOf(() => orderMachine.restore({ ...snapshotOf(), state: 'shipped' }))).toBe('unknown_state');
  });

  it('refuses a context that fails the context schema with invalid_context, naming the fields', () => {
    let details: unknown;
    try {
      orderMachine.restore({ ...snapshotOf(), context: { items: 'three' } });
    } catch (error) {
      details = isParleyError(error, 'invalid_context') ? error.details : undefined;
    }
    expect(details).toMatchObject({ machine: 'order', missingFields: ['paid'] });
  });

  it('never half-loads: a refused snapshot leaves no actor and no timer', () => {
    const clock = createManualClock();
    const bad = {
      ...snapshotOf(),
      state: 'review',
      context: { items: -5, paid: false },
      deadlines: [{ at: 9, event: 'timeout' }],
    };
    expect(codeOf(() => createActor(orderMachine, { clock, snapshot: bad }))).toBe('invalid_context');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('lists every error code', () => {
    expect(FSM_ERROR_CODES).toContain('migration_failed');
  });
});

describe('migration', () => {
  const v1 = defineMachine({
    id: 'ticket',
    version: 1,
    initial: 'open',
    context: { owner: 'nobody' },
    states: { open: { on: { close: 'closed' } }, closed: { final: true } },
  });
  const v2 = defineMachine({
    id: 'ticket',
    version: 2,
    initial: 'open',
    context: { assignee: 'nobody' },
    migrate: (snapshot) => {
      if (snapshot.version !== 1) throw new Error(`cannot migrate from ${snapshot.version}`);
      const context = snapshot.context as { owner: string };
      return { ...snapshot, version: 2, context: { assignee: context.owner } };
    },
    states: { open: { on: { close: 'resolved' } }, resolved: { final: true } },
  });
  const old = () => JSON.parse(JSON.stringify(createActor(v1, { clock: createManualClock() }).snapshot()));

  it('runs the migrate hook for an older version', () => {
    const restored = v2.restore({ ...old(), context: { owner: 'ada' } });
    expect(restored).toMatchObject({ version: 2, state: 'open', context: { assignee: 'ada' } });
  });

  it('refuses with migration_failed when the hook throws, keeping the cause', () => {
    let cause: unknown;
    try {
      v2.restore({ ...old(), version: 7 });
    } catch (error) {
      cause = isParleyError(error, 'migration_failed') ? error.cause : undefined;
    }
    expect(String(cause)).toContain('cannot migrate from 7');
  });

  it('refuses with migration_failed when the hook returns another version', () => {
    const sloppy = defineMachine({ ...v2.config, migrate: (s) => s });
    expect(codeOf(() => sloppy.restore(old()))).toBe('migration_failed');
  });

  it('refuses a migrated snapshot whose state the new version lacks with unknown_state', () => {
    const closed = { ...old(), state: 'closed', done: true };
    expect(codeOf(() => v2.restore(closed))).toBe('unknown_state');
  });

  it('keeps the request machine restorable as-is', () => {
    const actor = createActor(requestMachine, { clock: createManualClock() });
    actor.send('cancel');
    expect(requestMachine.restore(JSON.parse(JSON.stringify(actor.snapshot()))).state).toBe('cancelled');
  });
});
