import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { shutdownProtocol } from '../src/index.js';
import { createLead, flush, storedPlanRequest, asStoredRecord } from './helpers.js';

const DAY_MS = 24 * 60 * 60_000;
/** The default retainSettledMs: how long a settled record stays, in memory and in the store. */
const RETAIN_MS = 5 * 60_000;

function onMemoryStore() {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const make = (prefix: string) => createLead({ clock, store, generateId: createSequentialIds(prefix) });
  return { clock, store, make };
}

describe('what a durable correlator keeps in the store', () => {
  it('writes a pending request to live until its latest deadline plus the retention', async () => {
    const { store, make } = onMemoryStore();
    const lead = make('a_');
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    expect((await store.getEntry('correlate:lead:a_1'))?.expiresAt).toBe(1_000 + DAY_MS + RETAIN_MS);
    lead.close();
  });

  it('keeps that expiry when progress moves the deadline', async () => {
    const { clock, store, make } = onMemoryStore();
    const lead = make('a_');
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    clock.advance(20_000);
    await lead.receive({
      kind: 'progress',
      request_id: 'a_1',
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
    });
    expect(await store.getEntry('correlate:lead:a_1')).toMatchObject({
      value: { data: { deadlineAt: 51_000 } },
      expiresAt: 1_000 + DAY_MS + RETAIN_MS,
    });
    lead.close();
  });

  it('keeps a settled request in the store for the retention only', async () => {
    const { clock, store, make } = onMemoryStore();
    const lead = make('a_');
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    clock.advance(4_000);
    await lead.cancel('a_1');
    expect((await store.getEntry('correlate:lead:a_1'))?.expiresAt).toBe(5_000 + RETAIN_MS);
    lead.close();
  });

  it('treats a stored request of a protocol it does not know as unknown', async () => {
    const { store, make } = onMemoryStore();
    await store.set('correlate:lead:other', asStoredRecord(storedPlanRequest()));
    const lead = make('a_');
    await expect(lead.waitFor('other')).rejects.toMatchObject({ code: 'unknown_request' });
    lead.close();
  });

  it('restores a pending request only once', async () => {
    const { make } = onMemoryStore();
    const a = make('a_');
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    const b = make('b_');
    expect(await b.restore()).toBe(1);
    expect(await b.restore()).toBe(0);
    expect(b.stats().pending).toBe(1);
    a.close();
    b.close();
  });
});
