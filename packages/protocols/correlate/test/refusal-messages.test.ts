import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineProtocol, shutdownProtocol } from '../src/index.js';
import { createLead, createTeam, faultyStore, flush, recordEvents, reply } from './helpers.js';

/** A lead on a faulty view of a memory store, with r1 pending and written. */
async function leadOnFaultyStore() {
  const clock = createManualClock({ now: 1_000 });
  const { store, faults } = faultyStore(createMemoryStore({ clock }));
  const lead = createLead({ clock, store, generateId: () => 'r1' });
  void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
  await flush();
  return { lead, faults };
}

describe('the message of a refused reply', () => {
  it('says a late reply came after the request expired', async () => {
    const { lead, clock } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    clock.advance(30_000);
    const result = await lead.receive(reply('req_1', { approve: true }));
    expect(result).toMatchObject({ ok: false, code: 'late' });
    expect(result.ok === false && result.message).toContain('expired');
  });

  it('says a duplicate reply found the request already settled, and how', async () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await lead.receive(reply('req_1', { approve: true }));
    const result = await lead.receive(reply('req_1', { approve: false }));
    expect(result).toMatchObject({ ok: false, code: 'duplicate' });
    expect(result.ok === false && result.message).toContain('already approved');
  });

  it('says the correlator closed while the reply was being checked', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({}),
      response: z.object({ approve: z.boolean() }).refine(async () => true),
    });
    const lead = createLead({ protocols: [slow], generateId: () => 's1' });
    void lead.request(slow, { to: 'alice', payload: {} }).catch(() => {});
    const pending = lead.receive(reply('s1', { approve: true }, 'alice', 'slow'));
    lead.close();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, code: 'closed', state: 'pending' });
    expect(result.ok === false && result.message).toContain('closed');
  });

  it('says the store could not be updated when the settlement cannot be written', async () => {
    const { lead, faults } = await leadOnFaultyStore();
    faults.failWrites = true;
    const result = await lead.receive(reply('r1', { approve: true }));
    expect(result).toMatchObject({ ok: false, code: 'store_failed', state: 'pending' });
    expect(result.ok === false && result.message).toContain('store');
    lead.close();
  });
});

describe('progress on a durable request', () => {
  it('refuses progress it cannot write to the store, keeping the deadline', async () => {
    const { lead, faults } = await leadOnFaultyStore();
    const events = recordEvents(lead);
    faults.failWrites = true;
    const note = { kind: 'progress', request_id: 'r1', protocol: 'shutdown', from: 'alice', to: 'lead' };
    expect(await lead.receive(note)).toMatchObject({ ok: false, code: 'store_failed', state: 'pending' });
    expect(lead.get('r1')).toMatchObject({ state: 'pending', deadlineAt: 31_000 });
    expect(events.progress).toEqual([]);
    expect(events.error.map((e) => e.code)).toEqual(['store_failed']);
    lead.close();
  });
});
