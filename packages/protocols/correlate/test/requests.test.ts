import { createManualClock, createMemoryStore, createSequentialIds, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CorrelateMessage, defineProtocol, shutdownProtocol } from '../src/index.js';
import { createLead, createTeam, flush, rejectionOf, reply, trackedSignal } from './helpers.js';

describe('request refusals', () => {
  it('names the protocol in the details of unknown_protocol', async () => {
    const { lead } = createTeam({}, []);
    expect(await rejectionOf(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toMatchObject({
      code: 'unknown_protocol',
      details: { protocol: 'shutdown' },
    });
  });

  it('refuses a recipient that is not a string with invalid_argument, naming it', async () => {
    const { lead } = createTeam();
    const error = await rejectionOf(lead.request(shutdownProtocol, { to: 42 as never, payload: {} }));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { to: 42 } });
    expect(lead.list()).toEqual([]);
  });

  it('names timeoutMs in the details of an invalid per-request timeout', async () => {
    const { lead } = createTeam();
    const error = await rejectionOf(
      lead.request(shutdownProtocol, { to: 'alice', payload: {}, timeoutMs: 0 }),
    );
    expect(isParleyError(error, 'invalid_timeout')).toBe(true);
    expect(error).toMatchObject({ details: { name: 'timeoutMs', value: 0 } });
  });

  it('names the repeated id in the details of invalid_argument', async () => {
    const { lead } = createTeam({ generateId: () => 'same' });
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    expect(await rejectionOf(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toMatchObject({
      code: 'invalid_argument',
      details: { id: 'same' },
    });
    lead.close();
  });

  it('names the request and protocol in the details of send_failed', async () => {
    const lead = createLead({
      generateId: () => 'r1',
      send: () => {
        throw new Error('socket closed');
      },
    });
    expect(await rejectionOf(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toMatchObject({
      code: 'send_failed',
      message: 'Sending request "r1" failed',
      details: { requestId: 'r1', protocol: 'shutdown' },
      cause: new Error('socket closed'),
    });
  });

  it('keeps no record of a request whose signal was already aborted', async () => {
    const { lead } = createTeam();
    const signal = AbortSignal.abort('no');
    await expect(lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(lead.list()).toEqual([]);
    expect(lead.stats()).toMatchObject({ pending: 0, settled: 0 });
  });

  it('rejects with closed, sending nothing, a request whose asynchronous check ends after close', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({}).refine(async () => true),
      response: z.object({ approve: z.boolean() }),
    });
    const sent: CorrelateMessage[] = [];
    const lead = createLead({ protocols: [slow], send: (message) => void sent.push(message) });
    const promise = lead.request(slow, { to: 'alice', payload: {} });
    lead.close();
    await expect(promise).rejects.toMatchObject({ code: 'closed' });
    expect(sent).toEqual([]);
    expect(lead.list()).toEqual([]);
  });

  it('resolves false when cancelling an id it does not know', async () => {
    const { lead } = createTeam();
    await expect(lead.cancel('nope')).resolves.toBe(false);
  });
});

describe('request deadlines', () => {
  it('caps the deadline of a request at maxTotalMs', () => {
    const { lead } = createTeam({ maxTotalMs: 10_000 });
    void lead.request(shutdownProtocol, { to: 'alice', payload: {}, timeoutMs: 60_000 }).catch(() => {});
    expect(lead.get('req_1')).toMatchObject({ deadlineAt: 11_000, maxDeadlineAt: 11_000 });
    lead.close();
  });
});

describe('abort listeners of requests', () => {
  it('removes the abort listener of a request once it settles', async () => {
    const { lead } = createTeam();
    const { controller, live } = trackedSignal();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal });
    expect(live.size).toBe(1);
    await lead.receive(reply('req_1', { approve: true }));
    await promise;
    expect(live.size).toBe(0);
  });

  it('removes the abort listener of a pending request on close', async () => {
    const { lead } = createTeam();
    const { controller, live } = trackedSignal();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal });
    lead.close();
    await expect(promise).rejects.toMatchObject({ code: 'closed' });
    expect(live.size).toBe(0);
  });
});

describe('requests on a shared store', () => {
  function twoLeads(retainSettledMs: number) {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const make = (prefix: string) =>
      createLead({ clock, store, retainSettledMs, generateId: createSequentialIds(prefix) });
    return { clock, a: make('a_'), b: make('b_') };
  }

  it('keeps a settled request in the store for retainSettledMs when that is over a minute', async () => {
    const { clock, a, b } = twoLeads(120_000);
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    await a.cancel('a_1', 'not needed');
    clock.advance(100_000);
    await expect(b.waitFor('a_1')).rejects.toMatchObject({ code: 'cancelled' });
    a.close();
    b.close();
  });

  it('keeps a settled record restored from the store for audit, not as pending', async () => {
    const { clock, a, b } = twoLeads(60_000);
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    await a.cancel('a_1');
    a.close();
    expect(await b.restore()).toBe(0);
    expect(b.stats()).toMatchObject({ pending: 0, settled: 1 });
    expect(b.list({ state: 'pending' })).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
    expect(clock.backgroundTimers()).toBe(1); // b's retention sweep only, in the background
    b.close();
  });
});
