// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/protocol-tools, compiled and run; each console.log is an assertion here.
import { createCorrelator, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
import { createToolGate } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import {
  defineProtocolTools,
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
});
