// Correlated requests on a real Restate server: every reply judged by correlate's rules.
import type { ReceiveResult } from '@parley/correlate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenResult, RequestRecord } from '../src/index.js';
import { call, serveOnRestate } from './endpoint.js';
import { type RestateServer, waitFor } from './server.js';
import { leadService, requests, responseTo } from './services.js';

const lead = leadService();

let server: RestateServer;
let n = 0;
const nextId = (): string => `req-${process.pid}-${n++}`;

let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([requests, lead]));
});
afterAll(async () => stop?.());

const open = (id: string, timeoutMs = 60_000): Promise<OpenResult> =>
  call(server.ingressUrl, `requests/${id}/open`, {
    protocol: 'shutdown',
    from: 'lead',
    to: 'alice',
    payload: { reason: 'work is done' },
    timeoutMs,
  });
const reply = (id: string, from: string, response: unknown, protocol = 'shutdown'): Promise<ReceiveResult> =>
  call(server.ingressUrl, `requests/${id}/reply`, responseTo(id, { protocol, from, response }));
const get = (id: string): Promise<RequestRecord | null> => call(server.ingressUrl, `requests/${id}/get`);

describe('defineRequests on a Restate server', () => {
  it('opens a request keyed by its request_id and settles it with the responder’s approval', async () => {
    const id = nextId();
    const opened = await open(id);
    expect(opened).toMatchObject({ ok: true, message: { kind: 'request', request_id: id, to: 'alice' } });
    expect(await reply(id, 'alice', { approve: true })).toEqual({
      ok: true,
      kind: 'response',
      requestId: id,
      state: 'approved',
    });
    expect(await get(id)).toMatchObject({ id, state: 'approved', response: { approve: true } });
  });

  it('settles a rejection with its reason', async () => {
    const id = nextId();
    await open(id);
    await reply(id, 'alice', { approve: false, reason: 'still writing' });
    expect(await get(id)).toMatchObject({ state: 'rejected', reason: 'still writing' });
  });

  it('refuses a reply from someone the request was not sent to, and the request stays pending', async () => {
    const id = nextId();
    await open(id);
    expect(await reply(id, 'mallory', { approve: true })).toMatchObject({ ok: false, code: 'wrong_sender' });
    expect(await get(id)).toMatchObject({ state: 'pending' });
    expect(await reply(id, 'alice', { approve: true })).toMatchObject({ ok: true, state: 'approved' });
  });

  it('refuses a second reply as a duplicate and keeps the first', async () => {
    const id = nextId();
    await open(id);
    await reply(id, 'alice', { approve: true });
    expect(await reply(id, 'alice', { approve: false })).toMatchObject({
      ok: false,
      code: 'duplicate',
      state: 'approved',
    });
    expect(await get(id)).toMatchObject({ state: 'approved', response: { approve: true } });
  });

  it('refuses a reply to a request that was never opened', async () => {
    const id = nextId();
    expect(await reply(id, 'alice', { approve: true })).toMatchObject({ ok: false, code: 'unknown_request' });
    expect(await get(id)).toBeNull();
  });

  it('refuses a reply of another protocol and one that fails the response schema', async () => {
    const id = nextId();
    await open(id);
    expect(await reply(id, 'alice', { approve: true }, 'plan_approval')).toMatchObject({
      code: 'protocol_mismatch',
    });
    expect(await reply(id, 'alice', 'yes')).toMatchObject({
      ok: false,
      code: 'invalid_response',
      state: 'pending',
    });
    expect(await get(id)).toMatchObject({ state: 'pending' });
  });

  it('expires a request at its deadline by a durable timer and refuses a reply after it as late', async () => {
    const id = nextId();
    await open(id, 200);
    await waitFor(`request ${id} to expire by its durable timer`, 20_000, async () => {
      return (await get(id))?.state === 'expired';
    });
    expect(await reply(id, 'alice', { approve: true })).toMatchObject({
      ok: false,
      code: 'late',
      state: 'expired',
    });
  });

  it('refuses to open a request_id twice', async () => {
    const id = nextId();
    await open(id);
    expect(await open(id)).toMatchObject({ ok: false, code: 'duplicate_request' });
  });

  it('wakes a waiting handler with the settled record', async () => {
    const id = nextId();
    await open(id);
    const waited = call<RequestRecord>(server.ingressUrl, 'lead/await', id);
    await reply(id, 'alice', { approve: true });
    expect(await waited).toMatchObject({ id, state: 'approved' });
  });
});
