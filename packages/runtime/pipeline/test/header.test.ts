import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { drive, setUp } from './helpers.js';

// The run header is a kernel record: what a run reports when it cannot be created or finished.
const pipeline = definePipeline({ name: 'one', nodes: [{ id: 'only', kind: 'task', agent: 'x' }] });
const KEY = 'pipeline:run:r1';

/** A memory store whose calls on the header key can be made to fail, by their count. */
function failing(failOn: { getEntry?: number; compareAndSet?: number }) {
  const clock = createManualClock();
  const inner = createMemoryStore({ clock });
  const count = { getEntry: 0, compareAndSet: 0 };
  const store: Store = {
    ...inner,
    getEntry: (key) =>
      key === KEY && ++count.getEntry === failOn.getEntry
        ? Promise.reject(new Error('read lost'))
        : inner.getEntry(key),
    compareAndSet: (key, ...rest) =>
      key === KEY && ++count.compareAndSet === failOn.compareAndSet
        ? Promise.reject(new Error('write lost'))
        : inner.compareAndSet(key, ...rest),
  };
  return { clock, store, inner };
}

describe('the run header', () => {
  it('refuses to start over a corrupt header and leaves it as it was', async () => {
    const { store, runner, events } = setUp(() => ({}));
    await store.set(KEY, { v: 1, name: 'one' });
    expect(await runner.start(pipeline, { runId: 'r1' })).toMatchObject({
      ok: false,
      code: 'corrupt_record',
    });
    expect(events.refused).toMatchObject([{ code: 'corrupt_record', key: KEY }]);
    expect(await store.get(KEY)).toEqual({ v: 1, name: 'one' });
  });

  it('ends the run corrupt_record when its header turned corrupt before it finished', async () => {
    let store: Store | undefined;
    const setup = setUp(async () => {
      await store?.set(KEY, 'garbage');
      return {};
    });
    store = setup.store;
    const result = await drive(setup.clock, setup.runner.start(pipeline, { runId: 'r1' }));
    expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await setup.store.get(KEY)).toBe('garbage');
  });

  it.each([
    ['read', { getEntry: 2 }],
    ['written', { compareAndSet: 2 }],
  ])(
    'ends the run store_failed when the header cannot be %s at the end, and a resume finishes it',
    async (_what, failOn) => {
      const { clock, store, inner } = failing(failOn);
      const first = setUp(() => ({}), { clock, store });
      const result = await drive(clock, first.runner.start(pipeline, { runId: 'r1' }));
      expect(result).toMatchObject({ ok: false, code: 'store_failed' });
      const second = setUp(() => ({}), { clock, store: inner });
      const resumed = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
      expect(resumed.ok && resumed.status).toBe('succeeded');
      expect(second.calls).toEqual([]); // the node was done: it does not run again
    },
  );
});
