import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { shutdownProtocol } from '../src/index.js';
import { createLead, faultyStore, flush, recordEvents, reply } from './helpers.js';

/** A lead on a faulty view of a memory store; `send()` starts a request and reports how it ended. */
function leadOnFaultyStore() {
  const clock = createManualClock({ now: 1_000 });
  const { store, faults } = faultyStore(createMemoryStore({ clock }));
  const lead = createLead({ clock, store, generateId: createSequentialIds('r') });
  const events = recordEvents(lead);
  const send = (): Promise<unknown> =>
    lead.request(shutdownProtocol, { to: 'alice', payload: {} }).then(
      (r) => r.state,
      (e: unknown) => e,
    );
  return { clock, lead, faults, events, send };
}

describe('store failures of a durable correlator', () => {
  it('names the request in the details of store_failed when its first write fails', async () => {
    const { lead, faults, send } = leadOnFaultyStore();
    faults.failWrites = true;
    expect(await send()).toMatchObject({
      code: 'store_failed',
      details: { requestId: 'r1' },
      cause: new Error('down'),
    });
    lead.close();
  });

  it('reports nothing when the first write of a request fails after close', async () => {
    const { lead, faults, events, send } = leadOnFaultyStore();
    faults.failWrites = true;
    const outcome = send();
    lead.close();
    expect(await outcome).toMatchObject({ code: 'closed' });
    await flush();
    expect(events.error).toEqual([]);
  });

  it('reports a settlement the store cannot write as one store_failed event', async () => {
    const { lead, faults, events, send } = leadOnFaultyStore();
    void send();
    await flush();
    faults.failWrites = true;
    expect(await lead.receive(reply('r1', { approve: true }))).toMatchObject({ code: 'store_failed' });
    expect(events.error).toEqual([{ code: 'store_failed', requestId: 'r1', error: new Error('down') }]);
    lead.close();
  });

  it('keeps the deadline of a request whose reply could not be written', async () => {
    const { lead, clock, faults, send } = leadOnFaultyStore();
    void send();
    await flush();
    faults.failWrites = true;
    await lead.receive(reply('r1', { approve: true }));
    faults.failWrites = false;
    clock.advance(29_999);
    await flush();
    expect(lead.get('r1')).toMatchObject({ state: 'pending', deadlineAt: 31_000 });
    lead.close();
  });

  it('tries a failed expiry write again one second later, not before', async () => {
    const { lead, clock, faults, send } = leadOnFaultyStore();
    const outcome = send();
    await flush();
    faults.failWrites = true;
    clock.advance(30_000);
    await flush();
    faults.failWrites = false;
    clock.advance(999);
    await flush();
    expect(lead.get('r1')?.state).toBe('pending');
    clock.advance(1);
    await flush();
    expect(await outcome).toMatchObject({ code: 'timeout' });
  });

  it('cancels locally when the store cannot record the cancellation, without running handlers', async () => {
    const { lead, faults, send } = leadOnFaultyStore();
    const handled: string[] = [];
    lead.handle(shutdownProtocol, (r) => handled.push(r.state));
    const outcome = send();
    await flush();
    faults.failWrites = true;
    expect(await lead.cancel('r1', 'not needed')).toBe(false);
    expect(await outcome).toMatchObject({ code: 'cancelled' });
    expect(lead.get('r1')).toMatchObject({ state: 'cancelled', reason: 'not needed' });
    expect(handled).toEqual([]);
    lead.close();
  });
});
