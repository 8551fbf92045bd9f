import { describe, expect, it } from 'vitest';
import { shutdownProtocol } from '../src/index.js';
import { createLead, createTeam, fragileProtocol, recordEvents, reply } from './helpers.js';

const response = reply('req_1', { approve: true });
const request = {
  kind: 'request',
  request_id: 'x1',
  protocol: 'shutdown',
  from: 'alice',
  to: 'lead',
  payload: {},
  deadline_at: 60_000,
};
const progress = { kind: 'progress', request_id: 'req_1', protocol: 'shutdown', from: 'alice', to: 'lead' };
const { response: _response, ...noResponse } = response as { response: unknown };
const { payload: _payload, ...noPayload } = request;

describe('messages of the wrong shape', () => {
  it.each([
    ['null', null, 'object'],
    ['a string', 'text', 'object'],
    ['a request_id that is not a string', { ...response, request_id: 5 }, 'request_id'],
    ['an empty request_id', { ...response, request_id: '' }, 'request_id'],
    ['a request_id longer than 256 characters', { ...response, request_id: 'r'.repeat(257) }, 'request_id'],
    ['an empty protocol', { ...response, protocol: '' }, 'protocol'],
    ['an empty from', { ...response, from: '' }, '"from"'],
    ['an empty to', { ...response, to: '' }, '"to"'],
    ['an unknown kind', { ...response, kind: 'other' }, 'kind'],
    ['a response without a response', noResponse, 'response'],
    ['a request without a payload', noPayload, 'payload'],
    ['a request whose deadline_at is not a number', { ...request, deadline_at: 'soon' }, 'deadline_at'],
    ['a request whose deadline_at is not finite', { ...request, deadline_at: Infinity }, 'deadline_at'],
    ['a progress note longer than 4000 characters', { ...progress, note: 'n'.repeat(4_001) }, 'note'],
    ['a waiting_on_human that is not a boolean', { ...progress, waiting_on_human: 1 }, 'waiting_on_human'],
  ])('refuses %s as malformed, naming what is wrong, and reports no error', async (_name, raw, named) => {
    const correlator = createLead();
    const events = recordEvents(correlator);
    const result = await correlator.receive(raw);
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(result.ok === false && result.message).toContain(named);
    expect(events.error).toEqual([]);
    expect(correlator.stats()).toMatchObject({ incoming: 0, refused: { malformed: 1 } });
    correlator.close();
  });

  it('refuses as malformed a request whose schema throws, and reports handler_failed', async () => {
    const boom = new Error('schema exploded');
    const correlator = createLead({ protocols: [fragileProtocol(boom)] });
    const events = recordEvents(correlator);
    const result = await correlator.receive({ ...request, protocol: 'fragile' });
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(events.error).toEqual([{ code: 'handler_failed', error: boom }]);
    expect(correlator.stats()).toMatchObject({ incoming: 0, refused: { malformed: 1 } });
    correlator.close();
  });

  it('reads an id of exactly 256 characters', async () => {
    const correlator = createLead();
    const result = await correlator.receive({ ...response, request_id: 'r'.repeat(256) });
    expect(result).toMatchObject({ ok: false, code: 'unknown_request' });
    correlator.close();
  });

  it('takes a progress note of exactly 4000 characters', async () => {
    const { lead, alice, deliver } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await deliver();
    alice.progress('req_1', { note: 'n'.repeat(4_000) });
    expect(await deliver()).toMatchObject({ ok: true, kind: 'progress', requestId: 'req_1' });
    lead.close();
    alice.close();
  });
});
