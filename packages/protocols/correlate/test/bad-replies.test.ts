import { describe, expect, it } from 'vitest';
import { shutdownProtocol } from '../src/index.js';
import { createTeam, reply } from './helpers.js';

async function pendingShutdown() {
  const team = createTeam();
  const events = team.record(team.lead);
  const promise = team.lead.request(shutdownProtocol, { to: 'alice', payload: {} });
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  team.transport.discard();
  return { ...team, events, promise, isSettled: () => settled };
}

describe('replies that must never settle a request', () => {
  it('refuses a reply to an unknown request_id and counts it', async () => {
    const { lead, events, isSettled } = await pendingShutdown();
    const result = await lead.receive(reply('req_99', { approve: true }));
    expect(result).toMatchObject({ ok: false, code: 'unknown_request', requestId: 'req_99' });
    expect(events.refused.map((e) => e.code)).toEqual(['unknown_request']);
    expect(lead.stats().refused).toEqual({ unknown_request: 1 });
    await Promise.resolve();
    expect(isSettled()).toBe(false);
    expect(lead.get('req_1')?.state).toBe('pending');
  });

  it('refuses a second reply to a settled request as duplicate, keeping the first answer', async () => {
    const { lead, promise, events } = await pendingShutdown();
    await lead.receive(reply('req_1', { approve: true }));
    const second = await lead.receive(reply('req_1', { approve: false, reason: 'changed my mind' }));
    expect(second).toMatchObject({ ok: false, code: 'duplicate', state: 'approved' });
    expect((await promise).state).toBe('approved');
    expect(lead.get('req_1')?.state).toBe('approved');
    expect(events.settled).toHaveLength(1);
  });

  it('refuses a reply after expiry as late', async () => {
    const { lead, promise, clock } = await pendingShutdown();
    clock.advance(30_000);
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    const late = await lead.receive(reply('req_1', { approve: true }));
    expect(late).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    expect(lead.get('req_1')?.state).toBe('expired');
  });

  it('refuses a reply from a party other than the one asked', async () => {
    const { lead, isSettled } = await pendingShutdown();
    const result = await lead.receive(reply('req_1', { approve: true }, 'mallory'));
    expect(result).toMatchObject({ ok: false, code: 'wrong_sender', from: 'mallory', state: 'pending' });
    await Promise.resolve();
    expect(isSettled()).toBe(false);
    expect(lead.get('req_1')?.state).toBe('pending');
  });

  it('refuses a reply whose schema fails, keeps the request pending and reports the issues', async () => {
    const { lead, promise, events } = await pendingShutdown();
    const result = await lead.receive(reply('req_1', { approve: 'yes' }));
    expect(result).toMatchObject({ ok: false, code: 'invalid_response', state: 'pending' });
    expect(result.ok === false && result.issues?.[0]?.pathText).toBe('approve');
    expect(events.refused[0]?.issues).toHaveLength(1);
    expect(lead.get('req_1')?.state).toBe('pending');
    await lead.receive(reply('req_1', { approve: true }));
    expect((await promise).state).toBe('approved');
  });

  it('refuses a reply naming another protocol', async () => {
    const { lead } = await pendingShutdown();
    const result = await lead.receive(reply('req_1', { approve: true }, 'alice', 'plan_approval'));
    expect(result).toMatchObject({ ok: false, code: 'protocol_mismatch' });
    expect(lead.get('req_1')?.state).toBe('pending');
  });

  it('refuses malformed messages and messages for someone else without throwing', async () => {
    const { lead } = await pendingShutdown();
    for (const bad of [
      null,
      'text',
      {},
      { kind: 'response', request_id: 'req_1' },
      { ...reply('req_1', {}), kind: 'other' },
    ]) {
      expect(await lead.receive(bad)).toMatchObject({ ok: false, code: 'malformed' });
    }
    const { response: _r, ...noResponse } = reply('req_1', {}) as { response: unknown };
    expect(await lead.receive(noResponse)).toMatchObject({ code: 'malformed' });
    expect(await lead.receive(reply('req_1', { approve: true }, 'alice', 'shutdown', 'bob'))).toMatchObject({
      ok: false,
      code: 'wrong_recipient',
    });
    expect(lead.stats().refused).toEqual({ malformed: 6, wrong_recipient: 1 });
    expect(lead.get('req_1')?.state).toBe('pending');
  });

  it('refuses a reply whose decide() throws as invalid_response', async () => {
    const { defineProtocol, createCorrelator } = await import('../src/index.js');
    const { z } = await import('zod');
    const odd = defineProtocol('odd', {
      request: z.object({}),
      response: z.object({}),
      decide: () => {
        throw new Error('boom');
      },
    });
    const lead = createCorrelator({ self: 'lead', protocols: [odd], send: () => {}, generateId: () => 'r1' });
    void lead.request(odd, { to: 'alice', payload: {} }).catch(() => {});
    const result = await lead.receive(reply('r1', {}, 'alice', 'odd'));
    expect(result).toMatchObject({ ok: false, code: 'invalid_response' });
    expect(lead.get('r1')?.state).toBe('pending');
    lead.close();
  });
});

describe('incoming requests on the responder side', () => {
  it('refuses a second request that reuses an id still in flight, never cross-wiring it', async () => {
    const team = createTeam();
    const { lead, alice, deliver } = team;
    void lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'first' } });
    const first = team.wire[0];
    await deliver();
    const again = await alice.receive({ ...first, from: 'mallory', payload: { reason: 'second' } });
    expect(again).toMatchObject({ ok: false, code: 'duplicate_request', state: 'pending', from: 'mallory' });
    expect(alice.get('req_1')).toMatchObject({ from: 'lead', payload: { reason: 'first' } });
    alice.respond('req_1', { approve: true });
    expect(team.wire.at(-1)).toMatchObject({ kind: 'response', to: 'lead' });
    expect(await alice.receive(first)).toMatchObject({ code: 'duplicate_request', state: 'approved' });
  });

  it('refuses a request whose payload fails its schema, of an unknown protocol, or past its deadline', async () => {
    const { alice, clock } = createTeam();
    const base = {
      kind: 'request',
      request_id: 'x1',
      protocol: 'plan_approval',
      from: 'bob',
      to: 'alice',
      deadline_at: clock.now() + 1000,
    };
    expect(await alice.receive({ ...base, payload: { plan: '' } })).toMatchObject({
      code: 'invalid_payload',
    });
    expect(await alice.receive({ ...base, protocol: 'deploy', payload: {} })).toMatchObject({
      code: 'unknown_protocol',
    });
    expect(await alice.receive({ ...base, payload: { plan: 'p' }, deadline_at: clock.now() })).toMatchObject({
      code: 'late',
    });
    expect(await alice.receive({ ...base, payload: { plan: 'p' }, deadline_at: 'soon' })).toMatchObject({
      code: 'malformed',
    });
    expect(alice.stats()).toMatchObject({
      incoming: 0,
      refused: { invalid_payload: 1, unknown_protocol: 1, late: 1, malformed: 1 },
    });
  });

  it('refuses incoming requests past maxPending', async () => {
    const { createCorrelator, planApprovalProtocol } = await import('../src/index.js');
    const alice = createCorrelator({
      self: 'alice',
      protocols: [planApprovalProtocol],
      send: () => {},
      maxPending: 1,
    });
    const base = {
      kind: 'request',
      protocol: 'plan_approval',
      from: 'bob',
      to: 'alice',
      deadline_at: Date.now() + 60_000,
      payload: { plan: 'p' },
    };
    expect(await alice.receive({ ...base, request_id: 'a' })).toMatchObject({ ok: true });
    expect(await alice.receive({ ...base, request_id: 'b' })).toMatchObject({
      ok: false,
      code: 'too_many_pending',
    });
    alice.close();
  });

  it('expires an unanswered incoming request at its deadline and then refuses to answer it', async () => {
    const { lead, alice, deliver, clock } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await deliver();
    clock.advance(30_000);
    expect(alice.get('req_1')?.state).toBe('expired');
    expect(() => alice.respond('req_1', { approve: true })).toThrowError(
      expect.objectContaining({ code: 'not_pending' }),
    );
    expect(() => alice.respond('nope', { approve: true })).toThrowError(
      expect.objectContaining({ code: 'unknown_request' }),
    );
  });

  it('refuses to send a response that fails the schema', async () => {
    const team = createTeam();
    const { lead, alice, deliver } = team;
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await deliver();
    expect(() => alice.respond('req_1', { approve: 'sure' })).toThrowError(
      expect.objectContaining({ code: 'invalid_response' }),
    );
    expect(team.wire).toHaveLength(0);
    expect(alice.get('req_1')?.state).toBe('pending');
  });
});
