import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '../src/index.js';
import { createTeam, fragileProtocol, reply } from './helpers.js';

describe('waitFor with several requests in flight', () => {
  it('settles a waiter only when its own request settles', async () => {
    const { lead } = createTeam();
    const first = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const second = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    let waited: string | undefined;
    const waiting = lead.waitFor('req_1').then((r) => {
      waited = r.state;
    });
    await lead.receive(reply('req_2', { approve: false }));
    await second;
    expect(waited).toBeUndefined(); // the other request settling did not touch this waiter
    await lead.receive(reply('req_1', { approve: true }));
    await Promise.all([first, waiting]);
    expect(waited).toBe('approved');
    lead.close();
  });
});

describe('audit retention', () => {
  it('keeps exactly maxSettled records and finds each of them by id across many settles', async () => {
    const { lead } = createTeam({ maxSettled: 3 });
    for (let i = 1; i <= 10; i++) {
      const pending = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
      await lead.receive(reply(`req_${i}`, { approve: true }));
      await pending;
    }
    expect(lead.list().map((r) => r.id)).toEqual(['req_8', 'req_9', 'req_10']);
    expect(lead.get('req_7')).toBeUndefined();
    expect(lead.get('req_8')?.state).toBe('approved');
    expect(lead.stats()).toMatchObject({ pending: 0, settled: 3 });
    const late = await lead.receive(reply('req_2', { approve: true }));
    expect(late).toMatchObject({ ok: false, code: 'unknown_request' });
    lead.close();
  });
});

describe('schemas that throw', () => {
  it('rejects the request with the error a schema throws and sends nothing', async () => {
    const boom = new Error('schema exploded');
    const fragile = fragileProtocol(boom);
    const sent: CorrelateMessage[] = [];
    const lead = createCorrelator({
      self: 'lead',
      protocols: [fragile],
      send: (m) => void sent.push(m),
      clock: createManualClock(),
    });
    await expect(lead.request(fragile, { to: 'alice', payload: {} })).rejects.toBe(boom);
    expect(sent).toEqual([]);
    expect(lead.stats().pending).toBe(0);
    lead.close();
  });
});
