import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { shutdownProtocol, type TrackedRequest } from '../src/index.js';
import { createLead, createTeam, reply, trackedSignal } from './helpers.js';

describe('waitFor', () => {
  it('resolves every waiter of one request', async () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const first = lead.waitFor('req_1');
    const second = lead.waitFor('req_1');
    await lead.receive(reply('req_1', { approve: true }));
    await expect(first).resolves.toMatchObject({ requestId: 'req_1', approved: true });
    await expect(second).resolves.toMatchObject({ requestId: 'req_1', approved: true });
  });

  it('settles a request normally while another request has a waiter', async () => {
    const { lead, record } = createTeam();
    const events = record(lead);
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    void lead.waitFor('req_1').catch(() => {});
    expect(await lead.receive(reply('req_2', { approve: true }))).toMatchObject({
      ok: true,
      state: 'approved',
    });
    expect(events.settled.map((e) => e.request.id)).toEqual(['req_2']);
    expect(events.error).toEqual([]);
    lead.close();
  });

  it('removes the abort listener of a waiter once its request settles', async () => {
    const { lead } = createTeam();
    const { controller, live } = trackedSignal();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waiting = lead.waitFor('req_1', { signal: controller.signal });
    expect(live.size).toBe(1);
    await lead.receive(reply('req_1', { approve: true }));
    await waiting;
    expect(live.size).toBe(0);
  });

  it('names the request in the details of unknown_request', async () => {
    const { lead } = createTeam();
    await expect(lead.waitFor('nope')).rejects.toMatchObject({
      code: 'unknown_request',
      details: { requestId: 'nope' },
    });
  });

  it('names the request in the details of store_failed when the store cannot be read', async () => {
    const clock = createManualClock();
    const memory = createMemoryStore({ clock });
    const store: Store = { ...memory, getEntry: () => Promise.reject(new Error('down')) };
    const lead = createLead({ clock, store });
    await expect(lead.waitFor('elsewhere')).rejects.toMatchObject({
      code: 'store_failed',
      details: { requestId: 'elsewhere' },
      cause: new Error('down'),
    });
    lead.close();
  });
});

describe('how a request fails', () => {
  it('names the request, protocol, party and deadline in the details of timeout', async () => {
    const { lead, clock } = createTeam();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {}, timeoutMs: 5_000 });
    clock.advance(5_000);
    await expect(promise).rejects.toMatchObject({
      code: 'timeout',
      details: { requestId: 'req_1', protocol: 'shutdown', to: 'alice', deadlineAt: 6_000 },
    });
  });

  it('names the request, protocol and reason in the details of cancelled', async () => {
    const { lead } = createTeam();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await lead.cancel('req_1', 'not needed');
    await expect(promise).rejects.toMatchObject({
      code: 'cancelled',
      details: { requestId: 'req_1', protocol: 'shutdown', reason: 'not needed' },
    });
  });
});

describe('handle', () => {
  it('runs every handler registered for one protocol', async () => {
    const { lead } = createTeam();
    const seen: string[] = [];
    lead.handle(shutdownProtocol, (r: TrackedRequest) => seen.push(`first ${r.state}`));
    lead.handle(shutdownProtocol, (r: TrackedRequest) => seen.push(`second ${r.state}`));
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await lead.receive(reply('req_1', { approve: true }));
    expect(seen).toEqual(['first approved', 'second approved']);
  });

  it('stops running a handler once unsubscribed', async () => {
    const { lead } = createTeam();
    const seen: string[] = [];
    const off = lead.handle(shutdownProtocol, (r: TrackedRequest) => seen.push(r.id));
    off();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await lead.receive(reply('req_1', { approve: true }));
    expect(seen).toEqual([]);
  });
});
