// Shared by the stored flow session tests: a small flow with a slot-filling step and an effect step,
// a store that throws on cue, and a driver that moves a manual clock while a promise waits on it.
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { z } from 'zod';
import { defineFlow } from '@parley/fsm';
import { createFlowSessionStore, type FlowSessionStoreOptions } from '../src/index.js';

export const intake = defineFlow({
  id: 'intake',
  version: 1,
  steps: [
    {
      name: 'goal',
      prompt: 'What and where?',
      fields: z.object({ goal: z.string(), where: z.array(z.string()).min(2) }),
    },
    {
      name: 'confirm',
      prompt: 'Type YES',
      fields: z.object({ confirm: z.literal('YES') }),
      onFailure: { action: 'back', to: 'goal', message: 'Not confirmed: back to the goal' },
    },
    {
      name: 'close',
      prompt: 'Saving the audit',
      fields: z.object({ audit_saved: z.literal(true) }),
      onFailure: { action: 'retry', message: 'The audit save failed', mark: 'close_pending' },
    },
  ],
});

export type Step = 'goal' | 'confirm' | 'close';

/** A memory store whose methods throw on cue. */
export interface FlakyStore extends Store {
  fail(method: 'compareAndSet' | 'getEntry', times: number): void;
}

export function createFlakyStore(clock: ManualClock): FlakyStore {
  const inner = createMemoryStore({ clock });
  const failing = { compareAndSet: 0, getEntry: 0 };
  const trip = (method: keyof typeof failing): void => {
    if (failing[method] > 0) {
      failing[method] -= 1;
      throw new Error(`${method} is down`);
    }
  };
  return {
    get: (key) => inner.get(key),
    getEntry: async (key) => {
      trip('getEntry');
      return inner.getEntry(key);
    },
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    compareAndSet: async (key, expected, value, options) => {
      trip('compareAndSet');
      return inner.compareAndSet(key, expected, value, options);
    },
    list: (prefix) => inner.list(prefix),
    close: () => inner.close(),
    fail(method, times) {
      failing[method] = times;
    },
  };
}

export function setup(options: Partial<FlowSessionStoreOptions<Step>> = {}) {
  const clock = createManualClock({ now: 1_000_000 });
  const store = createFlakyStore(clock);
  const sessions = createFlowSessionStore(intake, { store, clock, draftSteps: ['goal'], ...options });
  return { clock, store, sessions };
}

/** Awaits `promise`, moving the clock to each next timer while it waits (no real time passes). */
export async function drive<T>(clock: ManualClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  const done = promise.finally(() => {
    settled = true;
  });
  for (let guard = 0; guard < 1_000 && !settled; guard++) {
    await new Promise((resolve) => setImmediate(resolve));
    const next = clock.nextTimerAt();
    if (!settled && next !== undefined) clock.advanceTo(next);
  }
  return done;
}

export const YES = { confirm: 'YES' } as const;
export const GOAL = { goal: 'remove reposts', where: ['x', 'y'] } as const;
