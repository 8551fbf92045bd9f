import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { ACTION, flush, setup } from './helpers.js';

// Issue 36: each record is written once per state change, on the version this gate committed, and
// nothing it wrote is read back.

/** A gate on a recording store, with one confirmation prompted (its prompt delivered). */
async function prompted() {
  const clock = createManualClock({ now: 1_000_000 });
  const store = createFakeStore({ inner: createMemoryStore({ clock }) });
  const h = await setup({ store }, { clock, store });
  const before = store.calls.length;
  const request = { sessionKey: 'feishu:g1', action: ACTION, summary: 'DELETE', requester: 'alice' };
  const decision = h.gate.request(request);
  await h.nextPrompt();
  /** Answers 确认 and waits until the decision and its writes are done. */
  const confirm = async (): Promise<void> => {
    await h.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
    await flush();
  };
  return { store, before, confirm };
}

describe('the store work of one confirmation', () => {
  it('writes the pending record when prompted and when delivered, the decision, and the delete — and reads nothing', async () => {
    const { store, before, confirm } = await prompted();
    await confirm();
    const calls = store.calls
      .slice(before)
      .filter((c) => c.method !== 'list') // the restore at start, recorded when its listing ended
      .map((c) => `${c.method} ${c.key.split(':').at(-2)}`);
    expect(calls).toEqual([
      'compareAndSet pending', // prompted: written before the prompt goes out
      'compareAndSet pending', // delivered: its send resolved
      'compareAndSet decision', // decided (first writer wins: lands only where none is recorded)
      'compareAndSet pending', // the pending record removed
    ]);
  });

  it('reads the stored record when another gate wrote it since: the compare-and-set on its own version fails', async () => {
    const { store, confirm } = await prompted();
    // Another writer changes the pending record's version under the gate (same content).
    const key = store.calls.find((c) => c.method === 'compareAndSet')?.key as string;
    const entry = await store.inner.getEntry(key);
    await store.inner.set(key, entry?.value ?? null);
    const reads = store.calls.filter((c) => c.method === 'getEntry').length;
    await confirm();
    expect(store.calls.filter((c) => c.method === 'getEntry').length).toBeGreaterThan(reads);
    expect(await store.inner.get(key)).toBeUndefined(); // removed all the same, after a fresh read
  });
});
