// Every TSDoc @example of @parley/openai-agents, compiled and run; each console.log is an assertion.
import { Agent, Runner } from '@openai/agents';
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  AGENTS_BRIDGE_ERROR_CODES,
  type AgentsBridge,
  AgentsBridgeError,
  type AgentsBridgeErrorCode,
  type AgentsBridgeOptions,
  type AgentsRunOptions,
  type AgentsResumeOutcome,
  type AgentsRunOutcome,
  createAgentsBridge,
  type PolicyGuardrailOptions,
  toInputGuardrail,
} from '../src/index.js';

describe('examples', () => {
  it('errors', () => {
    expect(AGENTS_BRIDGE_ERROR_CODES).toEqual([
      'invalid_argument',
      'run_pending',
      'corrupt_record',
      'record_version',
      'store_failed',
    ]);
    const code: AgentsBridgeErrorCode = 'run_pending';
    expect(isParleyError(new AgentsBridgeError(code, 'busy'), 'run_pending')).toBe(true);
  });

  it('types', () => {
    const options: AgentsBridgeOptions<unknown> = {
      agent: new Agent({ name: 'ops', instructions: 'Help.' }),
      runner: new Runner({ tracingDisabled: true }),
      confirm: { bus: createMessageBus() },
    };
    const run: AgentsRunOptions<null> = {
      runId: 'turn-1',
      input: 'Drop orders',
      sessionKey: 'tg:1',
      requester: 'u1',
    };
    const text = (outcome: AgentsRunOutcome<unknown>): unknown =>
      outcome.status === 'completed' ? outcome.result.finalOutput : undefined;
    const close = (bridge: AgentsBridge<unknown>): Promise<void> => bridge.close();
    const resumedHere = (outcome: AgentsResumeOutcome<unknown>): boolean => outcome.status === 'completed';
    expect(resumedHere({ status: 'waiting' })).toBe(false);
    const guard: PolicyGuardrailOptions<{ readOnly: boolean }> = { policies: [] };
    expect([options, run, text, close, guard]).toHaveLength(5);
  });

  it('toInputGuardrail', () => {
    const guardrail = toInputGuardrail<{ readOnly: boolean }>({
      policies: [
        {
          name: 'read_only',
          check: ({ context }) => (context.readOnly ? { message: 'read-only' } : undefined),
        },
      ],
    });
    expect([guardrail.type, guardrail.name]).toEqual(['tool_input', 'parley_policies']);
  });

  it('createAgentsBridge', async () => {
    const bridge = createAgentsBridge({
      agent: new Agent({ name: 'ops', instructions: 'Help.' }),
      runner: new Runner({ tracingDisabled: true }),
      confirm: { bus: createMessageBus() },
    });
    await bridge.ready;
    expect(bridge.confirmGate.pending()).toEqual([]);
    await bridge.close();
  });
});
