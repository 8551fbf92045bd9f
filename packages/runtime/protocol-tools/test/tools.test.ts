import { createMemoryStore, type StandardSchemaV1 } from '@parley/core';
import { defineProtocol, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { createToolGate, toOpenAITools, type ToolCallProposal } from '@parley/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineProtocolTools, type ProtocolToolContext } from '../src/index.js';
import { createTeam, type Team } from './helpers.js';

const shutdown = defineProtocolTools(shutdownProtocol);
const plan = defineProtocolTools(planApprovalProtocol, {
  requestName: 'plan_submit',
  respondName: 'plan_review',
});
// Each party's gate registers only the tools of its side of the handshake.
const lead = createToolGate({
  tools: [shutdown.request, plan.respond],
  allowlist: ['shutdown_request', 'plan_review'],
});
const teammate = createToolGate({
  tools: [shutdown.respond, plan.request],
  allowlist: ['shutdown_response', 'plan_submit'],
});

let team: Team;
afterEach(() => {
  team.close();
  expect(team.clock.pendingTimers()).toBe(0);
});

let turn = 0;
async function call(
  gate: { process: typeof lead.process },
  context: ProtocolToolContext,
  tool: string,
  args: unknown,
) {
  const proposal: ToolCallProposal = { id: `call_${++turn}`, tool, args };
  return gate.process([proposal], { turn, context });
}

describe('the shutdown handshake through tools', () => {
  it('lets the lead request and the teammate answer by request_id', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    const alice = team.add('alice');
    const sent = await call(lead, { correlator: leadC, peers: ['alice'] }, 'shutdown_request', {
      to: 'alice',
      payload: { reason: 'work is done' },
    });
    expect(sent.executed[0]?.result).toEqual({ request_id: 'req_1', to: 'alice', status: 'pending' });
    await team.flush();
    const incoming = alice.get('req_1');
    expect(incoming && shutdown.notice(incoming)).toEqual({
      type: 'protocol_request',
      protocol: 'shutdown',
      request_id: 'req_1',
      from: 'lead',
      payload: { reason: 'work is done' },
      answer_with: 'shutdown_response',
      deadline: '2026-04-15T09:00:30.000Z',
    });
    const answered = await call(teammate, { correlator: alice }, 'shutdown_response', {
      request_id: 'req_1',
      approve: true,
      reason: 'saved; exiting',
    });
    expect(answered.executed[0]?.result).toEqual({ request_id: 'req_1', state: 'approved' });
    await team.flush();
    const outcome = leadC.get('req_1');
    expect(outcome && shutdown.notice(outcome)).toEqual({
      type: 'protocol_outcome',
      protocol: 'shutdown',
      request_id: 'req_1',
      to: 'alice',
      state: 'approved',
      reason: 'saved; exiting',
    });
  });

  it('keeps each party to its side of the handshake', async () => {
    team = createTeam();
    const alice = team.add('alice');
    const result = await call(teammate, { correlator: alice }, 'shutdown_request', {
      to: 'lead',
      payload: {},
    });
    expect(result.feedback.failed_calls[0]?.code).toBe('unknown_tool');
    expect(team.wire).toEqual([]);
  });

  it('leaves the reason out of a notice when the outcome has none', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    const alice = team.add('alice');
    await call(lead, { correlator: leadC }, 'shutdown_request', { to: 'alice', payload: {} });
    await team.flush();
    await call(teammate, { correlator: alice }, 'shutdown_response', { request_id: 'req_1', approve: true });
    await team.flush();
    const outcome = leadC.get('req_1');
    expect(outcome && shutdown.notice(outcome)).not.toHaveProperty('reason');
  });
});

describe('request tool refusals', () => {
  const failed = (r: Awaited<ReturnType<typeof call>>) => [
    r.feedback.failed_calls[0]?.tool_reason,
    r.executed.length,
  ];

  it('refuses a party that is not a peer, and itself', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    expect(
      failed(
        await call(lead, { correlator: leadC, peers: ['alice'] }, 'shutdown_request', {
          to: 'mallory',
          payload: {},
        }),
      ),
    ).toEqual(['unknown_peer', 0]);
    expect(
      failed(await call(lead, { correlator: leadC }, 'shutdown_request', { to: 'lead', payload: {} })),
    ).toEqual(['unknown_peer', 0]);
    expect(team.wire).toEqual([]);
  });

  it('refuses a second request to the same teammate while one is pending', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    await call(lead, { correlator: leadC }, 'shutdown_request', { to: 'alice', payload: {} });
    expect(
      failed(await call(lead, { correlator: leadC }, 'shutdown_request', { to: 'alice', payload: {} })),
    ).toEqual(['already_pending', 0]);
    expect(team.wire).toHaveLength(1);
  });

  it('refuses a payload the protocol schema rejects, too many pending, a failing transport and a closed party', async () => {
    team = createTeam();
    const bob = team.add('bob', { maxPending: 1 });
    expect(
      failed(await call(teammate, { correlator: bob }, 'plan_submit', { to: 'lead', payload: { plan: '' } })),
    ).toEqual(['invalid_payload', 0]);
    await call(teammate, { correlator: bob }, 'plan_submit', { to: 'lead', payload: { plan: 'a' } });
    expect(
      failed(await call(teammate, { correlator: bob }, 'plan_submit', { to: 'cto', payload: { plan: 'b' } })),
    ).toEqual(['too_many_pending', 0]);
    const carol = team.add('carol', {
      send: () => {
        throw new Error('down');
      },
    });
    expect(
      failed(
        await call(teammate, { correlator: carol }, 'plan_submit', { to: 'lead', payload: { plan: 'a' } }),
      ),
    ).toEqual(['send_failed', 0]);
    const dave = team.add('dave');
    dave.close();
    expect(
      failed(
        await call(teammate, { correlator: dave }, 'plan_submit', { to: 'lead', payload: { plan: 'a' } }),
      ),
    ).toEqual(['closed', 0]);
  });

  it('reports a correlator error outside its reasons as a failed execution, not a refusal', async () => {
    team = createTeam();
    const erin = team.add('erin', { protocols: [shutdownProtocol] });
    const result = await call(teammate, { correlator: erin }, 'plan_submit', {
      to: 'lead',
      payload: { plan: 'a' },
    });
    expect(result.executed).toEqual([]);
    expect(result.feedback.failed_calls[0]?.tool_reason).toBeUndefined();
  });
});

describe('respond tool refusals', () => {
  const reasonOf = (r: Awaited<ReturnType<typeof call>>) => r.feedback.failed_calls[0]?.tool_reason;

  it('refuses an id it never received, its own request, and another protocol', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    const bob = team.add('bob');
    expect(
      reasonOf(
        await call(lead, { correlator: leadC }, 'plan_review', { request_id: 'req_9', approve: true }),
      ),
    ).toBe('unknown_request');
    await call(lead, { correlator: leadC }, 'shutdown_request', { to: 'bob', payload: {} });
    expect(
      reasonOf(
        await call(lead, { correlator: leadC }, 'plan_review', { request_id: 'req_1', approve: true }),
      ),
    ).toBe('unknown_request');
    await team.flush();
    const wrong = createToolGate({ tools: [plan.respond], allowlist: ['plan_review'] });
    expect(
      reasonOf(await call(wrong, { correlator: bob }, 'plan_review', { request_id: 'req_1', approve: true })),
    ).toBe('wrong_protocol');
  });

  it('refuses a second answer, and an answer after the deadline', async () => {
    team = createTeam();
    const leadC = team.add('lead');
    const bob = team.add('bob');
    await call(teammate, { correlator: bob }, 'plan_submit', { to: 'lead', payload: { plan: 'a' } });
    await team.flush();
    await call(lead, { correlator: leadC }, 'plan_review', {
      request_id: 'req_1',
      approve: false,
      reason: 'no',
    });
    expect(
      reasonOf(
        await call(lead, { correlator: leadC }, 'plan_review', { request_id: 'req_1', approve: true }),
      ),
    ).toBe('not_pending');
    const late = createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] });
    bob.request(shutdownProtocol, { to: 'lead', payload: {}, timeoutMs: 1_000 }).catch(() => {});
    await team.flush();
    team.clock.advance(1_000);
    await team.flush();
    expect(
      reasonOf(
        await call(late, { correlator: leadC }, 'shutdown_response', { request_id: 'req_2', approve: true }),
      ),
    ).toBe('not_pending');
  });

  it('refuses an answer the response schema rejects, and a failing transport', async () => {
    const strict = defineProtocol('deploy', {
      request: z.object({ service: z.string() }),
      response: z.object({ approve: z.literal(true), reason: z.string().optional() }),
    });
    const tools = defineProtocolTools(strict);
    const gate = createToolGate({
      tools: [tools.request, tools.respond],
      allowlist: ['deploy_request', 'deploy_response'],
    });
    team = createTeam();
    const ops = team.add('ops', { protocols: [strict] });
    const cto = team.add('cto', {
      protocols: [strict],
      send: () => {
        throw new Error('down');
      },
    });
    await call(gate, { correlator: ops }, 'deploy_request', { to: 'cto', payload: { service: 'api' } });
    await call(gate, { correlator: ops }, 'deploy_request', { to: 'ceo', payload: { service: 'db' } });
    team.wire.splice(1); // only the request to cto goes out
    await team.flush();
    expect(
      reasonOf(
        await call(gate, { correlator: cto }, 'deploy_response', { request_id: 'req_1', approve: false }),
      ),
    ).toBe('invalid_response');
    expect(
      reasonOf(
        await call(gate, { correlator: cto }, 'deploy_response', { request_id: 'req_1', approve: true }),
      ),
    ).toBe('send_failed');
  });
});

describe('a restart with a Store', () => {
  it('keeps a plan submitted through the tool pending across a restart, and the review lands', async () => {
    team = createTeam();
    const store = createMemoryStore({ clock: team.clock });
    const before = team.add('bob', { store });
    const leadC = team.add('lead');
    await call(teammate, { correlator: before }, 'plan_submit', {
      to: 'lead',
      payload: { plan: 'stage it' },
    });
    await team.flush();
    before.close();
    const after = team.add('bob', { store });
    expect(await after.restore()).toBe(1);
    const outcome = after.waitFor('req_1');
    const reviewed = await call(lead, { correlator: leadC }, 'plan_review', {
      request_id: 'req_1',
      approve: true,
      reason: 'go',
    });
    expect(reviewed.executed[0]?.result).toEqual({ request_id: 'req_1', state: 'approved' });
    await team.flush();
    await expect(outcome).resolves.toMatchObject({ state: 'approved', reason: 'go' });
    const settled = after.get('req_1');
    expect(settled && plan.notice(settled)).toMatchObject({ type: 'protocol_outcome', state: 'approved' });
  });
});

describe('tool schemas', () => {
  it('shows the model the protocol payload schema, or the one given by hand', () => {
    const deploy = defineProtocol('deploy', {
      request: z.object({ service: z.string() }),
      response: z.object({ approve: z.boolean() }),
    });
    const [exported] = toOpenAITools([defineProtocolTools(deploy).request]);
    expect(JSON.stringify(exported)).toContain('"service"');
    const byHand = defineProtocolTools(planApprovalProtocol, {
      payloadJsonSchema: { type: 'object', properties: { plan: { type: 'string' } } },
    });
    expect(JSON.stringify(toOpenAITools([byHand.request]))).toContain('"plan"');
    expect(plan.request.reasons).toContain('already_pending');
  });

  it('falls back to a plain object for a payload schema that cannot describe itself', () => {
    const opaque: StandardSchemaV1<unknown, { x: number }> = {
      '~standard': { version: 1, vendor: 'hand', validate: (value) => ({ value: value as { x: number } }) },
    };
    const tools = defineProtocolTools(defineProtocol('opaque', { request: opaque, response: opaque }));
    expect(tools.request.jsonSchema).toMatchObject({ properties: { payload: { type: 'object' } } });
    expect(tools.respond.name).toBe('opaque_response');
  });
});
