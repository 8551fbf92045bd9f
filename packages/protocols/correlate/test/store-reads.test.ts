import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { shutdownProtocol } from '../src/index.js';
import { createLead, flush, reply } from './helpers.js';

/** A lead on a memory store that counts its reads, with r1 pending and written. */
async function leadCountingReads() {
  const clock = createManualClock({ now: 1_000 });
  const memory = createMemoryStore({ clock });
  const reads = { count: 0 };
  const store: Store = {
    ...memory,
    list: (prefix) => memory.list(prefix),
    getEntry: (key) => {
      reads.count++;
      return memory.getEntry(key);
    },
  };
  const lead = createLead({ clock, store, generateId: () => 'r1' });
  const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
  await flush();
  reads.count = 0; // writing a new request reads its key once (the kernel checks it is free)
  return { lead, reads, promise };
}

describe('store reads of a durable correlator', () => {
  it('reads nothing from the store for a reply to a request it holds', async () => {
    const { lead, reads, promise } = await leadCountingReads();
    expect(await lead.receive(reply('r1', { approve: true }))).toMatchObject({ ok: true, state: 'approved' });
    await expect(promise).resolves.toMatchObject({ approved: true });
    expect(reads.count).toBe(0);
    lead.close();
  });

  it('reads nothing from the store to wait for a request it holds', async () => {
    const { lead, reads } = await leadCountingReads();
    const waiting = lead.waitFor('r1');
    await lead.receive(reply('r1', { approve: true }));
    await expect(waiting).resolves.toMatchObject({ approved: true });
    expect(reads.count).toBe(0);
    lead.close();
  });
});
