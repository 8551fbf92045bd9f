import { type Clock, createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { defineProtocol, shutdownProtocol } from '../src/index.js';
import { createLead, errorOf } from './helpers.js';

describe('createCorrelator options', () => {
  it.each([
    ['a self that is not a string', { self: 42 as never }, 'invalid_argument', { self: 42 }],
    ['an empty self', { self: '' }, 'invalid_argument', { self: '' }],
    ['a timeoutMs of zero', { timeoutMs: 0 }, 'invalid_timeout', { name: 'timeoutMs' }],
    ['a negative humanTimeoutMs', { humanTimeoutMs: -5 }, 'invalid_timeout', { name: 'humanTimeoutMs' }],
    ['an infinite maxTotalMs', { maxTotalMs: Infinity }, 'invalid_timeout', { name: 'maxTotalMs' }],
    ['a maxPending of zero', { maxPending: 0 }, 'invalid_argument', { maxPending: 0 }],
    ['a negative retainSettledMs', { retainSettledMs: -1 }, 'invalid_argument', { retainSettledMs: -1 }],
    ['a fractional maxSettled', { maxSettled: 1.5 }, 'invalid_argument', { maxSettled: 1.5 }],
  ])('refuses %s, naming it in the details', (_name, options, code, details) => {
    const error = errorOf(() => createLead(options));
    expect(isParleyError(error)).toBe(true);
    expect(error).toMatchObject({ code, details });
  });

  it('names the protocol when two protocols share a name', () => {
    const twin = defineProtocol('shutdown', {
      request: shutdownProtocol.request,
      response: shutdownProtocol.response,
    });
    const error = errorOf(() => createLead({ protocols: [shutdownProtocol, twin] }));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { protocol: 'shutdown' } });
  });

  it('accepts the same protocol listed twice', () => {
    const lead = createLead({ protocols: [shutdownProtocol, shutdownProtocol] });
    expect(lead.self).toBe('lead');
    lead.close();
  });

  it('names itself in the details of closed', async () => {
    const lead = createLead();
    lead.close();
    await expect(lead.request(shutdownProtocol, { to: 'alice', payload: {} })).rejects.toMatchObject({
      code: 'closed',
      details: { self: 'lead' },
    });
  });

  it('arms the retention sweep as background work and a deadline as foreground work', async () => {
    const manual = createManualClock({ now: 1_000 });
    const armed: { delayMs: number; background: boolean }[] = [];
    const clock: Clock = {
      now: manual.now,
      setTimeout(callback, delayMs, options) {
        armed.push({ delayMs, background: options?.background === true });
        return manual.setTimeout(callback, delayMs, options);
      },
      clearTimeout: manual.clearTimeout,
    };
    const lead = createLead({ clock, timeoutMs: 5_000, retainSettledMs: 60_000 });
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await lead.cancel(lead.list()[0]?.id ?? '');
    expect(armed).toEqual([
      { delayMs: 5_000, background: false },
      { delayMs: 60_000, background: true },
    ]);
    lead.close();
  });
});
