// Every TSDoc @example of @parley/ai-sdk, compiled and run; each console.log of an example is an
// assertion here.
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AI_SDK_BRIDGE_ERROR_CODES,
  type AiSdkBridge,
  AiSdkBridgeError,
  type AiSdkBridgeErrorCode,
  type AiSdkBridgeOptions,
  type ApprovalAnswer,
  type ApprovalSource,
  type ApproveOptions,
  type BridgeRun,
  createAiSdkBridge,
  type GeneratedTurn,
  type ResumedApproval,
  toConflictGenerate,
  toProposal,
} from '../src/index.js';

describe('examples', () => {
  it('errors', () => {
    expect(AI_SDK_BRIDGE_ERROR_CODES).toEqual([
      'invalid_argument',
      'invalid_result',
      'corrupt_record',
      'record_version',
      'store_failed',
      'call_id_reused',
    ]);
    const code: AiSdkBridgeErrorCode = 'invalid_argument';
    const error = new AiSdkBridgeError(code, 'no tools');
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('types', async () => {
    const options: AiSdkBridgeOptions<{ readOnly: boolean }> = {
      tools: {},
      confirm: { bus: createMessageBus() },
      requireApproval: [],
    };
    const run: BridgeRun<{ readOnly: boolean }> = { turn: 1, context: { readOnly: false } };
    const approve: ApproveOptions = { sessionKey: 'telegram:42', requester: 'u1', state: { chat: 42 } };
    const allApproved = (answer: ApprovalAnswer): boolean => answer.approved;
    const onResume = (resumed: ResumedApproval): number => resumed.messages.length;
    const toolsOf = (bridge: AiSdkBridge<null>) => bridge.tools({ turn: 1, context: null });
    const empty: ApprovalSource = { content: [], response: { messages: [] } };
    const turn: GeneratedTurn = { text: 'The door opens.', toolCalls: [] };
    expect([options, run, approve, allApproved, onResume, toolsOf, empty, turn]).toHaveLength(8);
  });

  it('createAiSdkBridge', async () => {
    const bridge = createAiSdkBridge({
      tools: {
        dropTable: tool({
          description: 'Drops a table',
          inputSchema: z.object({ table: z.string() }),
          needsApproval: true,
          execute: async ({ table }) => `dropped ${table}`,
        }),
      },
      confirm: { bus: createMessageBus() },
    });
    expect(Object.keys(bridge.tools({ turn: 1, context: null }))).toEqual(['dropTable']);
    await bridge.close();
  });

  it('toProposal', () => {
    const proposal = toProposal({
      text: 'Moving.',
      toolCalls: [{ toolCallId: 'c1', toolName: 'move', input: { to: 'hall' } }],
    });
    expect(proposal.tool_calls).toEqual([{ id: 'c1', tool: 'move', args: { to: 'hall' } }]);
  });

  it('toConflictGenerate', async () => {
    const generate = toConflictGenerate(async ({ messages }) => ({
      text: `${messages.length} messages`,
      toolCalls: [],
    }));
    const proposal = await generate(
      { input: [{ role: 'user', content: 'hi' }], feedback: [] },
      { attempt: 1, signal: undefined },
    );
    expect(proposal.text).toBe('1 messages');
  });
});
