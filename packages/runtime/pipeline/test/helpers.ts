import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import {
  createPipelineRunner,
  type NodeContext,
  type PipelineRunner,
  type PipelineRunnerEvents,
  type PipelineRunnerOptions,
} from '../src/index.js';

export const MIN = 60_000;

/** Lets every queued callback run, then moves the clock to the next timer, until `work` settles. */
export async function drive<T>(clock: ManualClock, work: Promise<T>, maxSteps = 10_000): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let step = 0; step < maxSteps; step++) {
    await flush();
    if (settled) return work;
    if (!clock.runNext()) {
      await flush();
      if (settled) return work;
      throw new Error('stuck: nothing pending and no timer due');
    }
  }
  throw new Error('too many steps');
}

/** Runs every queued microtask and immediate. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Work that resolves after `ms` on the clock. */
export function after<T>(clock: ManualClock, ms: number, value: T, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Setup {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly runner: PipelineRunner;
  readonly calls: string[];
  readonly events: { [K in keyof PipelineRunnerEvents]: PipelineRunnerEvents[K][] };
}

/** A runner on a manual clock and a memory store that records every call of its work and every event. */
export function setUp(
  work: (ctx: NodeContext) => unknown,
  options: Partial<PipelineRunnerOptions> & { clock?: ManualClock; store?: Store } = {},
): Setup {
  const clock = options.clock ?? createManualClock({ now: 0 });
  const store = options.store ?? createMemoryStore({ clock });
  const calls: string[] = [];
  const runner = createPipelineRunner({
    ...options,
    store,
    clock,
    work: (ctx) => {
      calls.push(`${ctx.node.id}#${ctx.attempt}`);
      return work(ctx);
    },
  });
  const events = {
    node: [],
    failure: [],
    revise: [],
    approval: [],
    run: [],
    ignored: [],
    refused: [],
  } as Setup['events'];
  for (const name of Object.keys(events) as (keyof PipelineRunnerEvents)[]) {
    runner.on(name, (payload) => (events[name] as unknown[]).push(payload));
  }
  return { clock, store, runner, calls, events };
}

/**
 * A store whose process crashes at its `at`-th write: that write and every later one throws,
 * `before` it lands or `after` it landed (the caller never hears it succeeded). Reads keep working.
 */
export function crashingStore(inner: Store, at: number, mode: 'before' | 'after'): Store {
  let writes = 0;
  return {
    ...inner,
    getEntry: (key) => inner.getEntry(key),
    get: (key) => inner.get(key),
    async compareAndSet(...args) {
      writes += 1;
      if (writes < at) return inner.compareAndSet(...args);
      if (mode === 'after' && writes === at) await inner.compareAndSet(...args);
      throw new Error(`crashed ${mode} write ${writes}`);
    },
  };
}
