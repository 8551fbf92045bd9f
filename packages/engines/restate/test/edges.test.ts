// Every refusal of the requests object and of awaitRequest, on a real Restate server.
import { planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRequests, type OpenResult, type RequestRecord } from '../src/index.js';
import { call, send, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';
import { early, leadService, requests, responseTo, waiterService } from './services.js';

const tight = defineRequests({
  name: 'tight',
  protocols: [shutdownProtocol, planApprovalProtocol],
  maxWatchers: 1,
});
const tightWaiter = waiterService('tightWaiter', tight);
const impatient = waiterService('impatient', requests, 1);

let server: RestateServer;

let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([requests, tight, leadService(), tightWaiter, impatient, early]));
});
afterAll(async () => stop?.());

const base = { protocol: 'shutdown', from: 'lead', to: 'alice', payload: {} };
const open = (object: string, id: string, input: unknown): Promise<OpenResult> =>
  call(server.ingressUrl, `${object}/${id}/open`, input);
const response = responseTo;
const attach = (invocation: string) =>
  http('GET', `${server.ingressUrl}/restate/invocation/${invocation}/attach`);

describe('open refuses', () => {
  it.each([
    ['a missing party', { ...base, to: '' }, /"to" must be a non-empty string/],
    ['a timeout that is not a positive integer', { ...base, timeoutMs: 0 }, /"timeoutMs"/],
    ['something that is not an object', 'hello', /open takes an object/],
  ])('%s as malformed', async (_name, input, text) => {
    const result = await open('requests', `malformed-${_name.length}`, input);
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(result.ok === false && result.message).toMatch(text);
  });

  it('a protocol the object does not know', async () => {
    expect(await open('requests', 'unknown-protocol', { ...base, protocol: 'deploy' })).toMatchObject({
      ok: false,
      code: 'unknown_protocol',
    });
  });

  it('a payload its protocol’s schema refuses, and opens nothing', async () => {
    expect(await open('requests', 'bad-payload', { ...base, payload: { reason: 42 } })).toMatchObject({
      ok: false,
      code: 'invalid_payload',
    });
    expect(await call(server.ingressUrl, 'requests/bad-payload/get')).toBeNull();
  });
});

describe('reply refuses', () => {
  it('something that is not a correlate message as malformed', async () => {
    await open('requests', 'reply-1', base);
    expect(await call(server.ingressUrl, 'requests/reply-1/reply', { kind: 'response' })).toMatchObject({
      ok: false,
      code: 'malformed',
    });
  });

  it('a progress note: only responses settle a request here', async () => {
    await open('requests', 'reply-2', base);
    const progress = {
      kind: 'progress',
      request_id: 'reply-2',
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
    };
    expect(await call(server.ingressUrl, 'requests/reply-2/reply', progress)).toMatchObject({
      ok: false,
      code: 'malformed',
      requestId: 'reply-2',
    });
  });

  it('a reply naming another request than the one it was sent to', async () => {
    await open('requests', 'reply-3', base);
    expect(await call(server.ingressUrl, 'requests/reply-3/reply', response('reply-9'))).toMatchObject({
      ok: false,
      code: 'unknown_request',
    });
    expect(await call<RequestRecord>(server.ingressUrl, 'requests/reply-3/get')).toMatchObject({
      state: 'pending',
    });
  });
});

describe('cancel', () => {
  it('cancels a pending request for its sender only, once', async () => {
    await open('requests', 'cancel-1', base);
    expect(await call(server.ingressUrl, 'requests/cancel-1/cancel', { by: 'alice' })).toMatchObject({
      ok: false,
      code: 'wrong_sender',
    });
    expect(await call(server.ingressUrl, 'requests/cancel-1/cancel', { by: 'lead' })).toMatchObject({
      ok: true,
      record: { state: 'cancelled' },
    });
    expect(await call(server.ingressUrl, 'requests/cancel-1/cancel', { by: 'lead' })).toMatchObject({
      ok: false,
      code: 'not_pending',
    });
    expect(await call(server.ingressUrl, 'requests/cancel-1/reply', response('cancel-1'))).toMatchObject({
      ok: false,
      code: 'duplicate',
      state: 'cancelled',
    });
  });

  it('refuses to cancel a request never opened', async () => {
    expect(await call(server.ingressUrl, 'requests/cancel-2/cancel', { by: 'lead' })).toMatchObject({
      ok: false,
      code: 'unknown_request',
    });
  });
});

describe('expire', () => {
  it('does not expire a request before its stored deadline, whoever calls it', async () => {
    await open('requests', 'early-1', base);
    expect(await call(server.ingressUrl, 'early/expire', 'early-1')).toMatchObject({ state: 'pending' });
    expect(await call<RequestRecord>(server.ingressUrl, 'requests/early-1/get')).toMatchObject({
      state: 'pending',
    });
  });

  it('does nothing for a request never opened or already settled', async () => {
    expect(await call(server.ingressUrl, 'early/expire', 'early-2')).toBeNull();
    await open('requests', 'early-3', base);
    await call(server.ingressUrl, 'requests/early-3/reply', response('early-3'));
    expect(await call(server.ingressUrl, 'early/expire', 'early-3')).toMatchObject({ state: 'approved' });
  });
});

describe('awaitRequest', () => {
  it('returns a request that is final already without waiting', async () => {
    await open('requests', 'await-1', base);
    await call(server.ingressUrl, 'requests/await-1/reply', response('await-1'));
    expect(await call(server.ingressUrl, 'lead/await', 'await-1')).toMatchObject({ state: 'approved' });
  });

  it('fails the waiting invocation for good on a request never opened (unknown_request)', async () => {
    const answer = await http('POST', `${server.ingressUrl}/lead/await`, 'await-2');
    expect(answer.status).toBe(500);
    expect(answer.text).toContain('unknown_request');
  });

  it('refuses a waiter past maxWatchers (too_many_watchers)', async () => {
    await open('tight', 'await-3', base);
    const first = await send(server.ingressUrl, 'tightWaiter/await', 'await-3');
    await waitFor('the first waiter to register', 20_000, async () => {
      return (await server.state('tight', 'await-3', 'watchers')) !== undefined;
    });
    const second = await http('POST', `${server.ingressUrl}/tightWaiter/await`, 'await-3');
    expect(second.text).toContain('too_many_watchers');
    await call(server.ingressUrl, 'tight/await-3/reply', response('await-3'));
    expect(JSON.parse((await attach(first)).text)).toMatchObject({ state: 'approved' });
  });

  it('gives up after maxWakeups wake-ups that the stored record does not confirm (forged_wakeups)', async () => {
    await open('requests', 'await-4', base);
    const waiting = send(server.ingressUrl, 'impatient/await', 'await-4');
    let awakeable: string | undefined;
    await waitFor('the impatient waiter to register', 20_000, async () => {
      awakeable = ((await server.state('requests', 'await-4', 'watchers')) as string[] | undefined)?.[0];
      return awakeable !== undefined;
    });
    await http('POST', `${server.ingressUrl}/restate/awakeables/${awakeable}/resolve`, { state: 'approved' });
    const answer = await attach(await waiting);
    expect(answer.text).toContain('forged_wakeups');
    expect(await call<RequestRecord>(server.ingressUrl, 'requests/await-4/get')).toMatchObject({
      state: 'pending',
    });
  });

  it('ends the wait when the waiting invocation is cancelled', async () => {
    await open('requests', 'await-5', base);
    const invocation = await send(server.ingressUrl, 'lead/await', 'await-5');
    await waitFor('the waiter to register', 20_000, async () => {
      return (await server.state('requests', 'await-5', 'watchers')) !== undefined;
    });
    const cancelled = await http('PATCH', `${server.adminUrl}/invocations/${invocation}/cancel`);
    expect(cancelled.status).toBeLessThan(300);
    const answer = await attach(invocation);
    expect(answer.text.toLowerCase()).toContain('cancel');
    expect(await call<RequestRecord>(server.ingressUrl, 'requests/await-5/get')).toMatchObject({
      state: 'pending',
    });
  });
});
