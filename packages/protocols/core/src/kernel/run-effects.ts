import { KernelError } from './errors.js';
import type { Kernel } from './api.js';
import type { Committed, KernelRefusal, KernelStep, Lease, RecordCodec } from './types.js';

/**
 * How many effects {@link runEffects} performs for one event by default before it gives up.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ROUNDS } from '@parley/core';
 *
 * console.log(DEFAULT_MAX_ROUNDS); // 64
 * ```
 */
export const DEFAULT_MAX_ROUNDS = 64;

/**
 * Runs effects: applies a step, performs each effect with `perform`, feeds each outcome event back
 * through `apply`, until no effects remain (bounded). The only writer of the records it runs.
 *
 * Effects run in order after the change that asked for them is committed, so a crash between two
 * of them leaves a record that says what is still owed. Claim an effect ({@link Kernel.claim}) inside
 * `perform` when running it twice would matter.
 *
 * @throws KernelError `effects_runaway` when more than `maxRounds` effects were performed.
 * @example
 * ```ts
 * import { createKernel, createMemoryStore, runEffects, type RecordCodec } from '@parley/core';
 *
 * type Order = { readonly state: 'new' | 'sent' };
 * const codec: RecordCodec<Order> = {
 *   kind: 'example.order', version: 1,
 *   decode: (data) => (data !== null && typeof data === 'object' && 'state' in data ? (data as Order) : undefined),
 *   encode: (value) => ({ ...value }),
 * };
 * const step = (order: Order | undefined, event: 'place' | 'sent') =>
 *   event === 'place' && order === undefined
 *     ? { value: { state: 'new' } as Order, effects: ['send'] }
 *     : { value: { state: 'sent' } as Order, effects: [] };
 * const kernel = createKernel({ store: createMemoryStore() });
 * const done = await runEffects(kernel, 'order:1', codec, step, 'place', async () => 'sent' as const);
 * console.log(done.ok && done.committed?.value); // { state: 'sent' }
 * ```
 */
export async function runEffects<T, E, X>(
  kernel: Kernel,
  key: string,
  codec: RecordCodec<T>,
  step: KernelStep<T, E, X>,
  event: E,
  perform: (effect: X) => Promise<E | undefined>,
  options: { readonly lease?: Lease; readonly maxRounds?: number } = {},
): Promise<{ readonly ok: true; readonly committed: Committed<T> | undefined } | KernelRefusal> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const applyOptions = options.lease === undefined ? {} : { lease: options.lease };
  const first = await kernel.apply(key, codec, step, event, applyOptions);
  if (!first.ok) return first;
  let committed = first.committed;
  const queue = [...first.effects];
  for (let rounds = 0; queue.length > 0; rounds++) {
    if (rounds >= maxRounds) {
      throw new KernelError('effects_runaway', `${key}: effects still pending after ${maxRounds} rounds`, {
        details: { key, maxRounds },
      });
    }
    const outcome = await perform(queue.shift() as X);
    if (outcome === undefined) continue;
    const next = await kernel.apply(key, codec, step, outcome, applyOptions);
    if (!next.ok) return next;
    committed = next.committed;
    queue.push(...next.effects);
  }
  return { ok: true, committed };
}
