import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { drive, flush, setUp } from './helpers.js';

// The drive loop reads a node again only when the store's watch reports a change it has not seen:
// its own writes are already in its cache, another runner's arrive as watched changes, and a watch
// that may have missed some (onResync) or a lease that ran out makes it read every node again.
const pipeline = definePipeline({
  name: 'diamond',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
  ],
});

/** A store counting reads of node records; `watch: false` takes its watch away. */
function counted(watch: boolean) {
  const clock = createManualClock();
  const inner = createMemoryStore({ clock });
  const reads = { count: 0 };
  const store: Store = {
    ...inner,
    getEntry: (key) => {
      if (key.startsWith('pipeline:node:')) reads.count += 1;
      return inner.getEntry(key);
    },
    watch: watch ? inner.watch : undefined,
  };
  return { clock, store, reads };
}

/** A store whose watch reports nothing until `resync()` tells its listeners they may have missed changes. */
function deafWatch(inner: Store): { store: Store; resync: () => void } {
  const resyncs: (() => void)[] = [];
  const store: Store = {
    ...inner,
    watch: (prefix, _listener, options) => {
      resyncs.push(() => options?.onResync?.({ prefix, reason: 'reconnected' }));
      return () => {};
    },
  };
  const resync = (): void => {
    for (const tell of resyncs) tell();
  };
  return { store, resync };
}

/**
 * Runner b on the store, holding intel until `open()`; runner a on the same store through a deaf
 * watch, which hears nothing until `resync()`.
 */
function twoRunners() {
  const clock = createManualClock();
  const shared = createMemoryStore({ clock });
  let release: (() => void) | undefined;
  const b = setUp(
    (ctx) =>
      ctx.node.id === 'intel'
        ? new Promise((resolve) => {
            release = () => resolve({ node: 'intel' });
          })
        : { node: ctx.node.id },
    { clock, store: shared },
  );
  const { store, resync } = deafWatch(shared);
  const a = setUp((ctx) => ({ node: ctx.node.id }), { clock, store });
  const open = (): void => {
    if (release === undefined) throw new Error('b is not working on intel yet');
    release();
  };
  return { clock, a, b, resync, open };
}

describe('what the drive loop reads', () => {
  it('reads a node a few times per run with a watch, never more than without one', async () => {
    const watched = counted(true);
    const plain = counted(false);
    const outputs = [];
    for (const { clock, store } of [watched, plain]) {
      const { runner } = setUp((ctx) => ({ node: ctx.node.id }), { clock, store });
      const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
      expect(result.ok && result.status).toBe('succeeded');
      outputs.push(result.ok ? result.nodes : undefined);
    }
    expect(outputs[0]).toEqual(outputs[1]);
    // 8 reads for four nodes (the next test counts them per node). Reading every node on every
    // wake, as the loop once did, was 74 here; writes that read first, 22; leases that read first,
    // a loop that re-read what its own tasks wrote and every node again when the watch went live, 18.
    expect(watched.reads.count).toBeLessThanOrEqual(8);
    expect(watched.reads.count).toBeLessThanOrEqual(plain.reads.count);
  });

  it('reads each node once and writes it twice per run, the header never read', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    const reads: Record<string, number> = {};
    const writes: Record<string, number> = {};
    const tally = (counts: Record<string, number>, key: string): void => {
      counts[key] = (counts[key] ?? 0) + 1;
    };
    const store: Store = {
      ...inner,
      getEntry: (key) => {
        tally(reads, key);
        return inner.getEntry(key);
      },
      compareAndSet: (key, ...rest) => {
        tally(writes, key);
        return inner.compareAndSet(key, ...rest);
      },
    };
    const { runner } = setUp((ctx) => ({ node: ctx.node.id }), { clock, store });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    const perNode = (counts: Record<string, number>) =>
      Object.fromEntries(
        ['run:r1', ...pipeline.nodes.map((n) => `node:r1:${n.id}`)].map((k) => [
          k,
          counts[`pipeline:${k}`] ?? 0,
        ]),
      );
    // Each node is read by the first tick only (the watch is live from the start, so its
    // 'subscribed' resync finds nothing unheard). Its lease and start are written together without
    // a read (the node had no record), its end starts from its start, and the loop does not read
    // what its own tasks wrote.
    expect(perNode(reads)).toEqual({
      'run:r1': 0,
      'node:r1:intel': 1,
      'node:r1:bull': 1,
      'node:r1:bear': 1,
      'node:r1:converge': 1,
    });
    // the lease with the start, and the end (which gives the lease back); the header created and finished
    expect(perNode(writes)).toEqual({
      'run:r1': 2,
      'node:r1:intel': 2,
      'node:r1:bull': 2,
      'node:r1:bear': 2,
      'node:r1:converge': 2,
    });
  });

  it('reads every node again when the watch may have missed changes, and sees another runner finish', async () => {
    const { a, b, resync, open } = twoRunners();
    const ran = b.runner.start(pipeline, { runId: 'r1' });
    await flush(); // b holds intel's lease and works on it
    let settled = false;
    const resumed = a.runner.resume(pipeline, { runId: 'r1' }).finally(() => (settled = true));
    await flush(); // a read every node and waits for b's lease on intel
    open();
    const done = await ran;
    expect(done.ok && done.status).toBe('succeeded');
    await flush();
    expect(settled).toBe(false); // a heard nothing: its watch is deaf
    resync();
    await flush();
    expect(settled).toBe(true);
    const result = await resumed;
    expect(result.ok && result.status).toBe('succeeded');
    expect(a.calls).toEqual([]);
    expect(b.calls).toEqual(['intel#1', 'bull#1', 'bear#1', 'converge#1']);
  });

  it('reads every node again when another runner’s lease runs out, though its watch heard nothing', async () => {
    const { clock, a, b, open } = twoRunners();
    const ran = b.runner.start(pipeline, { runId: 'r1' });
    await flush();
    const resumed = a.runner.resume(pipeline, { runId: 'r1' });
    await flush();
    open();
    expect((await ran).ok).toBe(true);
    const result = await drive(clock, resumed); // a's timer for b's lease on intel fires
    expect(result.ok && result.status).toBe('succeeded');
    expect(a.calls).toEqual([]);
  });
});
