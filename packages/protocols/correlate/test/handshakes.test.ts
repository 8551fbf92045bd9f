import { describe, expect, it } from 'vitest';
import { planApprovalProtocol, shutdownProtocol } from '../src/index.js';
import { createTeam } from './helpers.js';

describe('the shutdown handshake', () => {
  it('settles approved when the teammate approves, and the tracker shows it', async () => {
    const team = createTeam();
    const { lead, alice, deliver, clock, record } = team;
    const events = record(lead);
    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'work is done' } });
    expect(team.wire[0]).toMatchObject({
      kind: 'request',
      request_id: 'req_1',
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
    });
    expect(lead.get('req_1')).toMatchObject({
      state: 'pending',
      role: 'requester',
      from: 'lead',
      to: 'alice',
    });

    expect(await deliver()).toEqual({ ok: true, kind: 'request', requestId: 'req_1', state: 'pending' });
    expect(alice.get('req_1')).toMatchObject({
      role: 'responder',
      from: 'lead',
      to: 'alice',
      payload: { reason: 'work is done' },
    });
    alice.respond('req_1', { approve: true, reason: 'wrapping up' });
    expect(await deliver()).toEqual({ ok: true, kind: 'response', requestId: 'req_1', state: 'approved' });

    await expect(reply).resolves.toMatchObject({
      requestId: 'req_1',
      state: 'approved',
      approved: true,
      reason: 'wrapping up',
      from: 'alice',
    });
    expect(lead.get('req_1')).toMatchObject({
      state: 'approved',
      settledAt: 1_000,
      response: { approve: true, reason: 'wrapping up' },
    });
    expect(alice.get('req_1')?.state).toBe('approved');
    expect(events.settled).toHaveLength(1);
    expect(events.refused).toHaveLength(0);
    expect(lead.stats().pending).toBe(0);
    clock.advance(5 * 60_000);
    expect(lead.get('req_1')).toBeUndefined(); // retention over: dropped
    expect(clock.pendingTimers()).toBe(0);
  });

  it('settles rejected with the reason when the teammate rejects, and the promise still resolves', async () => {
    const { lead, alice, deliver } = createTeam();
    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await deliver();
    alice.respond('req_1', { approve: false, reason: 'mid-write of config.json' });
    await deliver();
    const result = await reply;
    expect(result).toMatchObject({ state: 'rejected', approved: false, reason: 'mid-write of config.json' });
    expect(lead.list({ protocol: 'shutdown' }).map((r) => r.state)).toEqual(['rejected']);
  });
});

describe('plan approval', () => {
  it('lets a teammate submit a plan the lead approves', async () => {
    const { lead, alice, deliver, record } = createTeam();
    const leadEvents = record(lead);
    const reply = alice.request(planApprovalProtocol, {
      to: 'lead',
      payload: { plan: 'Refactor the auth module' },
    });
    await deliver();
    expect(leadEvents.request.map((e) => e.request.payload)).toEqual([{ plan: 'Refactor the auth module' }]);
    lead.respond('al_1', { approve: true });
    await deliver();
    expect((await reply).state).toBe('approved');
    expect(alice.get('al_1')?.state).toBe('approved');
    expect(lead.list({ role: 'responder', state: 'approved' })).toHaveLength(1);
  });

  it('lets the lead reject a risky plan with feedback', async () => {
    const { lead, alice, deliver } = createTeam();
    const reply = alice.request(planApprovalProtocol, { to: 'lead', payload: { plan: 'rm -rf build/' } });
    await deliver();
    const tracked = lead.respond('al_1', { approve: false, reason: 'too risky' });
    expect(tracked).toMatchObject({ state: 'rejected', reason: 'too risky', role: 'responder' });
    await deliver();
    await expect(reply).resolves.toMatchObject({ state: 'rejected', reason: 'too risky' });
    expect(alice.list({ role: 'requester' })).toMatchObject([
      { id: 'al_1', state: 'rejected', payload: { plan: 'rm -rf build/' } },
    ]);
  });
});
