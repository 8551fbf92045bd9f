// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/protocol-tools, compiled and run; each console.log is an assertion here.
import {
  type CorrelateMessage,
  createCorrelator,
  planApprovalProtocol,
  shutdownProtocol,
} from '@parley/correlate';
import { createManualClock } from '@parley/core';
import { createToolGate } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import {
  createProtocolAgent,
  createTeamLead,
  defineProtocolTools,
  MAX_TEAMMATES,
  type PlanReviewed,
  type ProtocolAgent,
  type ProtocolAgentEvents,
  type ProtocolAgentModel,
  type ProtocolAgentOptions,
  type ProtocolAgentPrompt,
  type ProtocolAgentTurn,
  type ProtocolNotice,
  type ProtocolToolContext,
  type ProtocolTools,
  type ProtocolToolsOptions,
  REQUEST_TOOL_REASONS,
  RESPOND_TOOL_REASONS,
  type RequestToolReason,
  type RequestToolResult,
  type RespondToolReason,
  type RespondToolResult,
  type ShutdownRequested,
  TEAM_REFUSAL_CODES,
  type TeamLead,
  type TeamLeadEvents,
  type TeamLeadOptions,
  type TeammateRecord,
  type TeammateStatus,
  type RosterRestored,
  type TeamRefusal,
  type TeamRefusalCode,
  type TeamTrackers,
} from '../src/index.js';

describe('@parley/protocol-tools examples', () => {
  it('defineProtocolTools', async () => {
    const plan = defineProtocolTools(planApprovalProtocol, {
      requestName: 'plan_submit',
      respondName: 'plan_review',
    });
    const correlator = createCorrelator({ self: 'bob', protocols: [planApprovalProtocol], send: () => {} });
    const gate = createToolGate({
      tools: [plan.request, plan.respond],
      allowlist: ['plan_submit', 'plan_review'],
    });
    const result = await gate.process(
      [
        {
          id: 'call_1',
          tool: 'plan_submit',
          args: { to: 'lead', payload: { plan: 'Refactor auth in 3 stages' } },
        },
      ],
      { turn: 1, context: { correlator } },
    );
    expect(result.executed[0]?.result).toMatchObject({ to: 'lead', status: 'pending' });
    correlator.close();
  });

  it('ProtocolTools', () => {
    const shutdown: ProtocolTools<'shutdown_request', 'shutdown_response'> =
      defineProtocolTools(shutdownProtocol);
    expect([shutdown.request.name, shutdown.respond.name]).toEqual(['shutdown_request', 'shutdown_response']);
  });

  it('reasons and types', () => {
    expect(REQUEST_TOOL_REASONS.includes('already_pending')).toBe(true);
    expect(RESPOND_TOOL_REASONS.includes('not_pending')).toBe(true);
    const correlator = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {} });
    const context: ProtocolToolContext = { correlator, peers: ['alice', 'bob'] };
    correlator.close();
    const options: ProtocolToolsOptions<'plan_submit', 'plan_review'> = {
      requestName: 'plan_submit',
      respondName: 'plan_review',
      waitingOnHuman: true,
    };
    const sent: RequestToolResult = { request_id: 'req_1', to: 'alice', status: 'pending' };
    const answered: RespondToolResult = { request_id: 'req_1', state: 'approved' };
    const line = (n: ProtocolNotice): string => `${n.type} ${n.request_id}`;
    const reason: RequestToolReason = 'unknown_peer';
    const respondReason: RespondToolReason = 'not_pending';
    expect(sent.status).toBe('pending');
  });

  it('createTeamLead', async () => {
    const wire: CorrelateMessage[] = [];
    const protocols = [shutdownProtocol, planApprovalProtocol];
    const correlator = createCorrelator({ self: 'lead', protocols, send: (m) => void wire.push(m) });
    const alice = createCorrelator({ self: 'alice', protocols, send: (m) => void wire.push(m) });
    alice.on('request', ({ request }) =>
      alice.respond(request.id, { approve: true, reason: 'saved; exiting' }),
    );
    const lead = createTeamLead({ correlator, teammates: ['alice'] });

    const sent = await lead.requestShutdown('alice', 'the work is done');
    expect(lead.teammate('alice')?.status).toBe('shutdown_pending');
    for (let m = wire.shift(); m; m = wire.shift()) await (m.to === 'lead' ? correlator : alice).receive(m);
    expect(lead.teammate('alice')?.status).toBe('shut_down');
    expect((await lead.requestShutdown('alice')).ok).toBe(false);
    expect(lead.trackers().shutdown_requests[sent.ok ? sent.requestId : '']?.status).toBe('approved');
    lead.close();
    correlator.close();
    alice.close();
  });

  it('TeamLead and TeamLeadOptions', () => {
    const correlator = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol, planApprovalProtocol],
      send: () => {},
    });
    const options: TeamLeadOptions = { correlator, teammates: ['alice', 'bob'] };
    const lead: TeamLead = createTeamLead({ correlator, teammates: ['alice'] });
    expect(lead.teammate('alice')?.status).toBe('working');
    lead.close();
    correlator.close();
  });

  it('team constants and types', () => {
    expect(TEAM_REFUSAL_CODES.includes('already_pending')).toBe(true);
    expect(MAX_TEAMMATES).toBe(1000);
    const code: TeamRefusalCode = 'unknown_teammate';
    const refusal: TeamRefusal = { ok: false, code: 'not_a_plan', message: 'req_2 is a shutdown request' };
    const status: TeammateStatus = 'unresponsive';
    const line = (t: TeammateRecord): string => `${t.name}: ${t.status} (${t.last?.id ?? 'no request yet'})`;
    expect(line({ name: 'dave', status, lateReplies: 0 })).toBe('dave: unresponsive (no request yet)');
    const show = (sent: ShutdownRequested): string => `shutdown ${sent.requestId} pending`;
    const reviewed = (done: PlanReviewed): string => `${done.request.id} ${done.request.state}`;
    const trackers: TeamTrackers = {
      shutdown_requests: { req_1: { target: 'alice', status: 'approved' } },
      plan_requests: { req_2: { from: 'bob', plan: 'Refactor auth in 3 stages', status: 'pending' } },
    };
    const onStatus = (e: TeamLeadEvents['status']): void => console.log(e.teammate.name, e.teammate.status);
    expect(Object.keys(trackers)).toEqual(['shutdown_requests', 'plan_requests']);
    const found: RosterRestored = { restored: 2, ignored: [] };
    expect(found.restored).toBe(2);
  });

  it('createProtocolAgent', async () => {
    const clock = createManualClock();
    const wire: CorrelateMessage[] = [];
    const shutdown = defineProtocolTools(shutdownProtocol);
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: (m) => void wire.push(m),
      clock,
    });
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      send: (m) => void wire.push(m),
      clock,
    });
    const agent = createProtocolAgent({
      correlator: alice,
      gate: createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] }),
      tools: [shutdown],
      clock,
      model: async (prompt) => ({
        tool_calls:
          'answer_with' in prompt
            ? [{ id: 'c1', tool: prompt.answer_with, args: { request_id: prompt.request_id, approve: true } }]
            : [],
      }),
    });

    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
    await alice.receive(wire.shift());
    clock.advance(0);
    await agent.idle();
    await lead.receive(wire.shift());
    expect((await reply).state).toBe('approved');
    agent.close();
    lead.close();
    alice.close();
  });

  it('protocol agent types', async () => {
    const start: ProtocolAgentPrompt<{ type: 'start'; task: string }> = {
      type: 'start',
      task: 'refactor auth',
    };
    const silentTurn: ProtocolAgentTurn = { tool_calls: [] };
    const silent: ProtocolAgentModel = async () => ({ tool_calls: [] });
    const shutdown = defineProtocolTools(shutdownProtocol);
    const correlator = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send: () => {} });
    const gate = createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] });
    const options: ProtocolAgentOptions = {
      correlator,
      gate,
      tools: [shutdown],
      model: async () => ({ tool_calls: [] }),
    };
    correlator.close();
    const onTurn = (e: ProtocolAgentEvents['turn']): void => console.log(e.result.executed.length);
    async function settle(agent: ProtocolAgent): Promise<number> {
      await agent.idle();
      return agent.turns;
    }
    expect(start.type).toBe('start');
  });
});
