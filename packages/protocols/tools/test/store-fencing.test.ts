// Settling a stored call is fenced by the claim that wrote it: a gate whose claim was forgotten
// (a rollback on another replica) and taken again cannot write its outcome over the new claim.
import type { JsonValue, Store, StoreEntry } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool } from '../src/index.js';

/** A Store whose versions count per key, starting at 1 again once a key was deleted (as a store may). */
function perKeyVersionStore(): Store {
  const data = new Map<string, StoreEntry>();
  const write = (key: string, value: JsonValue, version: number): number => {
    data.set(key, { key, value, version });
    return version;
  };
  return {
    get: async (key) => data.get(key)?.value,
    getEntry: async (key) => data.get(key),
    set: async (key, value) => write(key, value, (data.get(key)?.version ?? 0) + 1),
    delete: async (key) => data.delete(key),
    async *list(prefix) {
      for (const entry of [...data.values()]) if (entry.key.startsWith(prefix)) yield entry;
    },
    async compareAndSet(key, expected, value) {
      const current = data.get(key)?.version ?? null;
      if (current !== expected) return { ok: false, version: current };
      if (value === undefined) {
        data.delete(key);
        return { ok: true, version: 0 };
      }
      return { ok: true, version: write(key, value, (current ?? 0) + 1) };
    },
    close: async () => undefined,
  };
}

/** A gate on `store` whose `charge` executor waits until `finish(result)`. */
function gateWithHeldCharge(store: Store) {
  let finish: (result: JsonValue) => void = () => {};
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const charge = defineTool({
    name: 'charge',
    description: 'Charges a card',
    args: z.object({ cents: z.number() }),
    reasons: [],
    execute: () =>
      new Promise<JsonValue>((resolve) => {
        finish = resolve;
        started();
      }),
  });
  const gate = createToolGate({ tools: [charge], allowlist: ['charge'], store });
  return { gate, running, finish: (result: JsonValue) => finish(result) };
}

const call = { id: 'c1', tool: 'charge', args: { cents: 500 } };

describe('createToolGate({ store }) settling a call', () => {
  it('never writes the outcome of a claim that was forgotten and taken again over the new one', async () => {
    const store = perKeyVersionStore();
    const a = gateWithHeldCharge(store);
    const b = gateWithHeldCharge(store);
    const first = a.gate.process([call], { turn: 1, context: undefined });
    await a.running;
    await b.gate.forgetTurnsAfter(0); // a rollback on another replica forgets turn 1, a's claim included
    const second = b.gate.process([call], { turn: 1, context: undefined });
    await b.running;
    a.finish({ by: 'a' }); // a's executor ends after its claim was forgotten and taken again by b
    await first;
    b.finish({ by: 'b' });
    expect((await second).executed[0]?.result).toEqual({ by: 'b' });
    const later = gateWithHeldCharge(store).gate; // a restarted process delivered the call again
    const replay = await later.process([call], { turn: 1, context: undefined });
    expect(replay.executed[0]).toMatchObject({ replayed: true, result: { by: 'b' } });
  });
});
