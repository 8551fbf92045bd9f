import { EnvelopeError } from '../errors.js';
import type { SpawnRequest, SpawnResult, SpawnWaitOptions } from '../topology-types.js';
import { names } from './topology-options.js';
import { spawnRefusal, WAITABLE } from './topology-rules.js';
import { report, type SpawnWaiter, startRun, type TopologyState } from './topology-state.js';

/** Spawns at once when a slot is free; otherwise waits for one in arrival order (`spawnWhenFree`). */
export function spawnWhenFree(
  state: TopologyState,
  request: SpawnRequest,
  waitOptions: SpawnWaitOptions,
): Promise<SpawnResult> {
  let named: { readonly id: string | undefined; readonly role: string | undefined };
  try {
    named = names(request);
  } catch (error) {
    return Promise.reject(error);
  }
  const { signal } = waitOptions;
  if (signal?.aborted === true) return Promise.reject(cancelled(signal));
  const refusal = spawnRefusal(state, request.parent, named.id);
  if (refusal === undefined) {
    return Promise.resolve({ ok: true, value: startRun(state, request.parent, named.id, named.role) });
  }
  if (!WAITABLE.has(refusal.code)) return Promise.resolve(report(state, 'spawn', refusal));
  return new Promise<SpawnResult>((resolve, reject) => {
    const waiter: SpawnWaiter = { parent: request.parent, ...named, resolve, reject, signal };
    if (signal !== undefined) {
      waiter.onAbort = () => {
        state.waiters.splice(state.waiters.indexOf(waiter), 1);
        reject(cancelled(signal));
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    }
    state.waiters.push(waiter);
  });
}

/** Gives freed slots to waiting spawns in arrival order; settles those that can never spawn. */
export function drain(state: TopologyState): void {
  if (state.draining) return; // a listener finishing a run mid-drain: the loop below sees the slot
  state.draining = true;
  const { waiters } = state;
  for (let i = 0; i < waiters.length; ) {
    const waiter = waiters[i] as SpawnWaiter;
    const refusal = spawnRefusal(state, waiter.parent, waiter.id);
    if (refusal !== undefined && WAITABLE.has(refusal.code)) {
      i++;
      continue;
    }
    waiters.splice(i, 1);
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(
      refusal === undefined
        ? { ok: true, value: startRun(state, waiter.parent, waiter.id, waiter.role) }
        : report(state, 'spawn', refusal),
    );
    i = 0; // what just happened may have freed or taken slots for earlier waiters
  }
  state.draining = false;
}

function cancelled(signal: AbortSignal): EnvelopeError {
  return new EnvelopeError('cancelled', 'The wait for a spawn slot was cancelled', { cause: signal.reason });
}
