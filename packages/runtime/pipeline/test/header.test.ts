import { createKernel, createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, NODE_RECORD, RUN_RECORD } from '../src/index.js';
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
  it('reads through RUN_RECORD (and its nodes through NODE_RECORD) without a runner, as a viewer does', async () => {
    const { clock, store, runner } = setUp(() => ({ ok: true }));
    await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    const kernel = createKernel({ store, clock });
    const runs = await kernel.list('pipeline:run:', RUN_RECORD);
    expect(runs.records.map((r) => [r.key, r.value.name, r.value.status])).toEqual([
      [KEY, 'one', 'succeeded'],
    ]);
    expect(runs.records[0]?.value.digest).toBe(pipeline.digest);
    const nodes = await kernel.list('pipeline:node:r1:', NODE_RECORD);
    expect(nodes.records.map((r) => [r.key, r.value.status])).toEqual([['pipeline:node:r1:only', 'done']]);
  });

  it('refuses a header that fails its check through RUN_RECORD', async () => {
    const store = createMemoryStore();
    await store.set(KEY, {
      kind: 'parley.pipeline.run',
      version: 1,
      data: { v: 1 },
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const found = await createKernel({ store }).list('pipeline:run:', RUN_RECORD);
    expect(found.refused.map((r) => r.code)).toEqual(['corrupt_record']);
  });

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

  it('ends the run store_failed when the header cannot be written at the end, and a resume finishes it', async () => {
    const { clock, store, inner } = failing({ compareAndSet: 2 });
    const first = setUp(() => ({}), { clock, store });
    const result = await drive(clock, first.runner.start(pipeline, { runId: 'r1' }));
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    const second = setUp(() => ({}), { clock, store: inner });
    const resumed = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(resumed.ok && resumed.status).toBe('succeeded');
    expect(second.calls).toEqual([]); // the node was done: it does not run again
  });

  it('reads the header again at the end when it changed since, and ends store_failed when that read fails', async () => {
    const { clock, store, inner } = failing({ getEntry: 1 });
    const first = setUp(
      async () => {
        // the header rewritten as it was: a new version the final write must read first
        const header = await inner.getEntry(KEY);
        if (header !== undefined) await inner.set(KEY, header.value);
        return {};
      },
      { clock, store },
    );
    const result = await drive(clock, first.runner.start(pipeline, { runId: 'r1' }));
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    const second = setUp(() => ({}), { clock, store: inner });
    const resumed = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(resumed.ok && resumed.status).toBe('succeeded');
    expect(second.calls).toEqual([]);
  });

  it('writes the header twice and never reads it: a new run starts from no record, and its end from the header it wrote', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const ops: string[] = [];
    const store: Store = {
      ...inner,
      getEntry: (key) => {
        if (key === KEY) ops.push('read');
        return inner.getEntry(key);
      },
      compareAndSet: (key, ...rest) => {
        if (key === KEY) ops.push('write');
        return inner.compareAndSet(key, ...rest);
      },
    };
    const { runner } = setUp(() => ({}), { clock, store });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(ops).toEqual(['write', 'write']);
  });
});
