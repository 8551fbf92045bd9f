import { describe, expect, it } from 'vitest';
import { planApprovalProtocol, shutdownProtocol } from '../src/index.js';
import { createTeam } from './helpers.js';

/** A team where lead has sent req_1 (pending) and received al_1 from alice (pending), nothing on the wire. */
async function bothSides(options: Parameters<typeof createTeam>[0] = {}) {
  const team = createTeam(options);
  void team.lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
  team.transport.discard();
  void team.alice.request(shutdownProtocol, { to: 'lead', payload: {} }).catch(() => {});
  await team.deliver();
  return team;
}

describe('list and stats', () => {
  it('lists only the requests it must answer with role responder', async () => {
    const { lead } = await bothSides();
    expect(lead.list({ role: 'responder' }).map((r) => [r.id, r.role])).toEqual([['al_1', 'responder']]);
  });

  it('lists only the requests of the protocol asked for', () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    void lead.request(planApprovalProtocol, { to: 'alice', payload: { plan: 'p' } }).catch(() => {});
    expect(lead.list({ protocol: 'plan_approval' }).map((r) => r.id)).toEqual(['req_2']);
    lead.close();
  });

  it('lists only the requests in the state asked for', async () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await lead.cancel('req_2');
    expect(lead.list({ state: 'cancelled' }).map((r) => r.id)).toEqual(['req_2']);
    expect(lead.list({ state: 'pending' }).map((r) => r.id)).toEqual(['req_1']);
    lead.close();
  });

  it('leaves response, reason and settledAt out of a pending record', () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    expect(lead.get('req_1')).toStrictEqual({
      id: 'req_1',
      protocol: 'shutdown',
      role: 'requester',
      from: 'lead',
      to: 'alice',
      state: 'pending',
      payload: {},
      createdAt: 1_000,
      deadlineAt: 31_000,
      maxDeadlineAt: 1_000 + 24 * 60 * 60_000,
      waitingOnHuman: false,
    });
    lead.close();
  });

  it('counts the settled records of both sides', async () => {
    const { lead } = await bothSides();
    await lead.cancel('req_1');
    lead.respond('al_1', { approve: true });
    expect(lead.stats()).toMatchObject({ pending: 0, incoming: 0, settled: 2 });
  });
});

describe('audit retention on both sides', () => {
  it('drops the requests it answered retainSettledMs after each settled', async () => {
    const team = createTeam({ retainSettledMs: 10_000 });
    const { lead, alice, clock } = team;
    void alice.request(shutdownProtocol, { to: 'lead', payload: {} }).catch(() => {});
    void alice.request(shutdownProtocol, { to: 'lead', payload: {} }).catch(() => {});
    await team.deliver();
    await team.deliver();
    lead.respond('al_1', { approve: true });
    clock.advance(1_000);
    lead.respond('al_2', { approve: true });
    clock.advance(9_000);
    expect(lead.list().map((r) => r.id)).toEqual(['al_2']);
    clock.advance(1_000);
    expect(lead.list()).toEqual([]);
  });

  it('drops records of both sides that fall due at the same time', async () => {
    const team = createTeam({ retainSettledMs: 10_000 });
    const { lead, alice, clock } = team;
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await lead.cancel('req_1');
    clock.advance(1_000);
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    team.transport.discard();
    void alice.request(shutdownProtocol, { to: 'lead', payload: {} }).catch(() => {});
    await team.deliver();
    await lead.cancel('req_2');
    lead.respond('al_1', { approve: true });
    clock.advance(9_000);
    expect(lead.list().map((r) => r.id)).toEqual(['req_2', 'al_1']);
    clock.advance(1_000);
    expect(lead.list()).toEqual([]);
  });
});
