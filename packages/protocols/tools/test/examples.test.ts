// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/tools, compiled and run: `console.log(x); // y` lines assert
// that x prints as y. Regenerate by copying the examples when they change.
import { format } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOOL_GATE_LIMITS,
  TOOLS_ERROR_CODES,
  TOOL_FAILURE_STATUSES,
  TOOL_REFUSAL_CODES,
  checkToolRegistry,
  classifySql,
  type SqlClassification,
  type SqlKind,
  createToolGate,
  definePolicy,
  defineTool,
  type DefinePolicyOptions,
  type RememberedCall,
  type ToolGateSnapshot,
  type TypedPolicyInput,
  type TypedPolicyRefusal,
  parseAnthropicToolUses,
  parseOpenAIToolCalls,
  toAnthropicTools,
  toLoopGate,
  toMcpTools,
  toOpenAIResponsesTools,
  toOpenAITools,
  toToolJsonSchema,
  type AnthropicTool,
  type AnyToolDefinition,
  type DisableUntil,
  type DisabledTool,
  type ExecutedToolCall,
  type FailedToolCall,
  type LoopGate,
  type LoopGateContext,
  type McpTool,
  type OpenAIChatTool,
  type OpenAIExportOptions,
  type OpenAIResponsesTool,
  type ParsedToolCalls,
  type RepairRecord,
  type ToolBatchResult,
  type ToolCallProposal,
  type ToolCallRecord,
  type ToolConfirmAnswer,
  type ToolConfirmFn,
  type ToolConfirmRequest,
  type ToolDefinition,
  type ToolExecuteContext,
  type ToolFailureStatus,
  type ToolGateFeedback,
  type ToolGate,
  type ToolGateEvents,
  type ToolGateLimits,
  type ToolGateOptions,
  type ToolInit,
  type ToolJsonSchema,
  type ToolNameOf,
  type ToolPolicy,
  type ToolPolicyInput,
  type ToolPolicyRefusal,
  type ToolRefusalCode,
  type ToolRefusalInfo,
  type ToolRegistryInput,
  type ToolRejection,
  type ToolRepairHook,
  type ToolRepairInput,
  type ToolRunOptions,
  type ToolRunOptionsWithoutContext,
  type CreatedToolGate,
  type ToolsErrorCode,
} from '../src/index.js';
import { isParleyError } from '@parley/core';
import { z } from 'zod';

function expectLogged(values: unknown[], printed: string): void {
  expect(format(...values)).toBe(printed);
}

describe('examples in define.ts', () => {
  it('runs the ToolRejection example', async () => {
    function isPathBlocked(value: ToolRejection<'path_blocked' | 'area_locked'>): boolean {
      return value.reason === 'path_blocked';
    }
  });
  it('runs the ToolExecuteContext example', async () => {
    function turnOf(context: ToolExecuteContext<{ phase: string }, 'locked'>): number {
      return context.turn;
    }
  });
  it('runs the ToolInit example', async () => {
    const Args = z.object({ sql: z.string() });
    const init: ToolInit<'data_modify', typeof Args, 'read_only', number> = {
      name: 'data_modify',
      description: 'Runs one SQL statement',
      args: Args,
      reasons: ['read_only'],
      confirm: (args) => /^\s*(delete|drop|update|insert|alter|truncate)\b/i.test(args.sql),
      execute: () => 0,
    };
  });
  it('runs the ToolDefinition example', async () => {
    function describe(tool: ToolDefinition): string {
      return `${tool.name}: ${tool.description} (refuses: ${tool.reasons.join(', ')})`;
    }
  });
  it('runs the AnyToolDefinition example', async () => {
    const names = (tools: readonly AnyToolDefinition[]): string[] => tools.map((tool) => tool.name);
  });
  it('runs the ToolNameOf example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    const name: ToolNameOf<readonly [typeof ping]> = 'ping';
  });
  it('runs the defineTool example', async () => {
    const hpDelta = defineTool({
      name: 'hp_delta',
      description: "Changes a character's hit points by delta",
      args: z.object({ target_character_id: z.string(), delta: z.number().int(), cause: z.string() }),
      reasons: ['unknown_character', 'character_dead'],
      execute: (args, { reject }) =>
        args.target_character_id === 'pc_1' ? { hp: 15 + args.delta } : reject('unknown_character'),
    });
    expectLogged([hpDelta.name, hpDelta.confirmation], 'hp_delta never');
  });
});

describe('examples in errors.ts', () => {
  it('runs the TOOLS_ERROR_CODES example', async () => {
    expectLogged([TOOLS_ERROR_CODES.includes('not_in_allowlist')], 'true');
  });
  it('runs the ToolsErrorCode example', async () => {
    const code: ToolsErrorCode = 'missing_reasons';
  });
  it('runs the ToolsError example', async () => {
    try {
      defineTool({
        name: 'bad name!',
        description: 'x',
        args: z.object({}),
        reasons: [],
        execute: () => null,
      });
    } catch (err) {
      expectLogged([isParleyError(err, 'invalid_tool')], 'true');
    }
  });
});

describe('examples in export.ts', () => {
  it('runs the ToolJsonSchema example', async () => {
    const schema: ToolJsonSchema = {
      type: 'object',
      properties: { sql: { type: 'string' } },
      required: ['sql'],
    };
  });
  it('runs the OpenAIExportOptions example', async () => {
    const options: OpenAIExportOptions = { strict: false };
  });
  it('runs the OpenAIChatTool example', async () => {
    const tool: OpenAIChatTool = {
      type: 'function',
      function: { name: 'ping', description: 'Pings', parameters: { type: 'object', properties: {} } },
    };
  });
  it('runs the OpenAIResponsesTool example', async () => {
    const tool: OpenAIResponsesTool = {
      type: 'function',
      name: 'ping',
      description: 'Pings',
      parameters: { type: 'object', properties: {} },
      strict: false,
    };
  });
  it('runs the AnthropicTool example', async () => {
    const tool: AnthropicTool = {
      name: 'ping',
      description: 'Pings',
      input_schema: { type: 'object', properties: {} },
    };
  });
  it('runs the McpTool example', async () => {
    const tool: McpTool = {
      name: 'ping',
      title: 'Ping',
      description: 'Pings',
      inputSchema: { type: 'object', properties: {} },
    };
  });
  it('runs the toToolJsonSchema example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({ host: z.string() }),
      reasons: [],
      execute: () => 'pong',
    });
    expectLogged([toToolJsonSchema(ping).required], "[ 'host' ]");
  });
  it('runs the toOpenAITools example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({ host: z.string() }).strict(),
      reasons: [],
      strict: true,
      execute: () => 'pong',
    });
    const [tool] = toOpenAITools([ping]);
    expectLogged([tool?.function.name, tool?.function.strict], 'ping true');
  });
  it('runs the toOpenAIResponsesTools example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({ host: z.string() }),
      reasons: [],
      execute: () => 'pong',
    });
    expectLogged([toOpenAIResponsesTools([ping])[0]?.strict], 'false');
  });
  it('runs the toAnthropicTools example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({ host: z.string() }),
      reasons: [],
      execute: () => 'pong',
    });
    expectLogged([toAnthropicTools([ping])[0]?.input_schema.type], 'object');
  });
  it('runs the toMcpTools example', async () => {
    const ping = defineTool({
      name: 'ping',
      title: 'Ping a host',
      description: 'Pings',
      args: z.object({ host: z.string() }),
      reasons: [],
      execute: () => 'pong',
    });
    expectLogged([toMcpTools([ping])[0]?.title], 'Ping a host');
  });
});

describe('examples in gate-types.ts', () => {
  it('runs the ToolPolicyInput example', async () => {
    const inCombat = (input: ToolPolicyInput<{ phase: string }>): boolean => input.context.phase === 'combat';
  });
  it('runs the ToolPolicyRefusal example', async () => {
    const locked: ToolPolicyRefusal = {
      reason: '区域移动锁未解除',
      toolReason: 'area_locked',
      disableUntil: { turn: 8 },
    };
  });
  it('runs the ToolPolicy example', async () => {
    const movementLock: ToolPolicy<{ state: string }, 'move'> = {
      name: 'movement_lock',
      tools: ['move'],
      check: ({ context }) =>
        context.state === 'combat'
          ? { message: 'Movement is locked during combat', toolReason: 'area_locked' }
          : undefined,
    };
  });
  it('runs the ToolConfirmRequest example', async () => {
    const prompt = (request: ToolConfirmRequest<unknown>): string => `Run ${request.summary}?`;
  });
  it('runs the ToolConfirmAnswer example', async () => {
    const answer: ToolConfirmAnswer = 'timed_out';
  });
  it('runs the ToolConfirmFn example', async () => {
    const askNobody: ToolConfirmFn<unknown> = () => 'declined';
  });
  it('runs the ToolRepairInput example', async () => {
    const isNameProblem = (input: ToolRepairInput<unknown>): boolean => input.problem === 'unknown_tool';
  });
  it('runs the ToolRepairHook example', async () => {
    const lowerCaseNames: ToolRepairHook<unknown> = ({ problem, call, tools }) =>
      problem === 'unknown_tool' && tools.includes(call.tool.toLowerCase())
        ? { tool: call.tool.toLowerCase(), args: call.args }
        : undefined;
  });
  it('runs the ToolRefusalInfo example', async () => {
    const text = (info: ToolRefusalInfo): string => `${info.tool}: ${info.code}`;
  });
  it('runs the ToolGateOptions example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    const options: ToolGateOptions<readonly [typeof ping], { phase: string }> = {
      tools: [ping],
      allowlist: ['ping'],
    };
  });
  it('runs the ToolRunOptions example', async () => {
    const run: ToolRunOptions<{ state: string }> = {
      turn: 3,
      context: { state: 'exploring' },
      sessionKey: 'feishu:oc_1',
      requester: 'ou_alice',
    };
  });
  it('runs the DisabledTool example', async () => {
    const entry: DisabledTool = { tool: 'move', until: { turn: 5 }, reason: 'rooted' };
  });
  it('runs the ToolGate example', async () => {
    async function runTurn(
      gate: ToolGate<string, { state: string }>,
      calls: { id: string; tool: string; args: unknown }[],
    ) {
      const { feedback } = await gate.process(calls, { turn: 1, context: { state: 'exploring' } });
      return feedback.failed_calls.length === 0;
    }
  });
  it('runs the ToolRunOptionsWithoutContext example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      execute: () => 'pong',
    });
    const gate = createToolGate({ tools: [ping], allowlist: ['ping'] });
    const run: ToolRunOptionsWithoutContext = { turn: 1 };
    const result = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], run);
    expectLogged([result.executed[0]?.result], 'pong');
  });
  it('runs the CreatedToolGate example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      execute: () => 'pong',
    });
    const gate: CreatedToolGate<'ping', unknown> = createToolGate({ tools: [ping], allowlist: ['ping'] });
    const result = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], { turn: 1 });
    expectLogged([result.executed.length], '1');
  });
});

describe('examples in gate.ts', () => {
  it('runs the createToolGate example', async () => {
    const positions = new Map([['pc_1', 'hall']]);
    const move = defineTool({
      name: 'move',
      description: 'Moves an actor to an adjacent area',
      args: z.object({
        actor_id: z.string(),
        from_area_id: z.string(),
        to_area_id: z.string(),
        path_id: z.string().optional(),
      }),
      reasons: ['area_locked', 'not_there'],
      execute: (args, { reject }) => {
        if (positions.get(args.actor_id) !== args.from_area_id) return reject('not_there');
        positions.set(args.actor_id, args.to_area_id);
        return { area: args.to_area_id };
      },
    });
    const gate = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [
        {
          name: 'movement_lock',
          tools: ['move'],
          check: ({ context }: { context: { state: string } }) =>
            context.state === 'combat'
              ? { message: '区域移动锁未解除', toolReason: 'area_locked' }
              : undefined,
        },
      ],
    });
    const result = await gate.process(
      [
        {
          id: 'call_001',
          tool: 'move',
          args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' },
        },
        { id: 'call_002', tool: 'teleport', args: {} },
      ],
      { turn: 1, context: { state: 'exploring' } },
    );
    expectLogged([result.executed.map((call) => call.id)], "[ 'call_001' ]");
    expectLogged([result.feedback.failed_calls[0]?.code], 'unknown_tool');
    expectLogged([positions.get('pc_1')], 'vault');
  });
});

describe('examples in loop-gate.ts', () => {
  it('runs the LoopGateContext example', async () => {
    const firstTry = (context: LoopGateContext<unknown>): boolean => context.attempt === 1;
  });
  it('runs the LoopGate example', async () => {
    const none: LoopGate<unknown> = async () => ({
      executed: [],
      feedback: { failed_calls: [] },
      records: [],
    });
  });
  it('runs the toLoopGate example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    const gate = createToolGate({ tools: [ping], allowlist: ['ping'] });
    const loopGate = toLoopGate(gate, (loop: { state: { turn: number } }) => ({
      turn: loop.state.turn,
    }));
    const result = await loopGate([{ id: 'c1', tool: 'ping', args: {} }], {
      state: { turn: 1 },
      attempt: 1,
      signal: undefined,
    });
    expectLogged([result.executed[0]?.result], 'pong');
  });
});

describe('examples in parse.ts', () => {
  it('runs the ParsedToolCalls example', async () => {
    const parsed: ParsedToolCalls = { calls: [{ id: 'call_1', tool: 'ping', args: {} }], failed_calls: [] };
  });
  it('runs the parseOpenAIToolCalls example', async () => {
    const parsed = parseOpenAIToolCalls([
      { id: 'call_1', type: 'function', function: { name: 'move', arguments: '{"actor_id":"pc_1"}' } },
      { id: 'call_2', type: 'function', function: { name: 'move', arguments: '{"actor_id":' } },
    ]);
    expectLogged([parsed.calls[0]?.args, parsed.failed_calls[0]?.code], "{ actor_id: 'pc_1' } invalid_args");
  });
  it('runs the parseAnthropicToolUses example', async () => {
    const parsed = parseAnthropicToolUses([
      { type: 'text', text: 'Moving.' },
      { type: 'tool_use', id: 'toolu_1', name: 'move', input: { actor_id: 'pc_1' } },
    ]);
    expectLogged([parsed.calls], "[ { id: 'toolu_1', tool: 'move', args: { actor_id: 'pc_1' } } ]");
  });
});

describe('examples in registry.ts', () => {
  it('runs the ToolRegistryInput example', async () => {
    const input: ToolRegistryInput = { tools: [], allowlist: [], confirmAvailable: false };
  });
  it('runs the checkToolRegistry example', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    try {
      checkToolRegistry({ tools: [ping], allowlist: [], confirmAvailable: false });
    } catch (err) {
      expectLogged([isParleyError(err, 'not_in_allowlist')], 'true');
    }
  });
});

describe('examples in types.ts', () => {
  it('runs the ToolCallProposal example', async () => {
    const call: ToolCallProposal = {
      id: 'call_001',
      tool: 'move',
      args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' },
      reason: 'The party heads for the vault',
    };
  });
  it('runs the TOOL_REFUSAL_CODES example', async () => {
    expectLogged([TOOL_REFUSAL_CODES.includes('unknown_tool')], 'true');
  });
  it('runs the ToolRefusalCode example', async () => {
    const code: ToolRefusalCode = 'invalid_args';
  });
  it('runs the TOOL_FAILURE_STATUSES example', async () => {
    expectLogged([TOOL_FAILURE_STATUSES], "[ 'rejected', 'error' ]");
  });
  it('runs the ToolFailureStatus example', async () => {
    const status: ToolFailureStatus = 'rejected';
  });
  it('runs the DisableUntil example', async () => {
    const untilTurn: DisableUntil = { turn: 12 };
    const untilTime: DisableUntil = { at: Date.UTC(2026, 0, 14, 10) };
  });
  it('runs the FailedToolCall example', async () => {
    const failed: FailedToolCall = {
      id: 'call_001',
      tool: 'move',
      status: 'rejected',
      code: 'disabled',
      reason: 'The tool "move" is disabled until turn 5',
      disabled_until: 'turn 5',
    };
  });
  it('runs the ToolGateFeedback example', async () => {
    const feedback: ToolGateFeedback = { failed_calls: [] };
  });
  it('runs the ExecutedToolCall example', async () => {
    const done: ExecutedToolCall = {
      id: 'call_002',
      tool: 'hp_delta',
      args: { target_character_id: 'pc_1', delta: -3, cause: 'trap' },
      result: { hp: 12 },
      replayed: false,
    };
  });
  it('runs the RepairRecord example', async () => {
    const record: RepairRecord = {
      problem: 'invalid_args',
      outcome: 'repaired',
      original: { tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: '-3', cause: 'trap' } },
      repaired: { tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -3, cause: 'trap' } },
    };
  });
  it('runs the ToolCallRecord example', async () => {
    const record: ToolCallRecord = {
      id: 'call_003',
      turn: 4,
      requested: { tool: 'fly', args: {} },
      outcome: 'rejected',
      code: 'unknown_tool',
      replayed: false,
    };
  });
  it('runs the ToolBatchResult example', async () => {
    function needsRetry(result: ToolBatchResult): boolean {
      return result.feedback.failed_calls.length > 0;
    }
  });
  it('runs the ToolGateEvents example', async () => {
    const log = (event: ToolGateEvents['refused']): void => console.log(event.failed.code);
  });
});

describe('examples in policy.ts', () => {
  it('runs the TypedPolicyInput example', async () => {
    const far = (input: TypedPolicyInput<{ state: string }, { to_area_id: string }>): boolean =>
      input.args.to_area_id === 'moon';
  });
  it('runs the TypedPolicyRefusal example', async () => {
    const locked: TypedPolicyRefusal<'area_locked' | 'no_path'> = {
      reason: 'The door is locked',
      toolReason: 'area_locked',
    };
  });
  it('runs the DefinePolicyOptions example', async () => {
    const options: DefinePolicyOptions = { name: 'movement_lock' };
  });
  it('runs the definePolicy example', async () => {
    const move = defineTool({
      name: 'move',
      description: 'Moves an actor',
      reasons: ['area_locked'],
      args: z.object({ actor_id: z.string(), to_area_id: z.string() }),
      execute: (args) => ({ area: args.to_area_id }),
    });
    const vaultLock = definePolicy(
      move,
      ({ args, context }: { args: { to_area_id: string }; context: { vaultOpen: boolean } }) =>
        args.to_area_id === 'vault' && !context.vaultOpen
          ? { message: 'The vault is locked', toolReason: 'area_locked' }
          : undefined,
    );
    const gate = createToolGate({ tools: [move], allowlist: ['move'], policies: [vaultLock] });
    const result = await gate.process(
      [{ id: 'c1', tool: 'move', args: { actor_id: 'pc_1', to_area_id: 'vault' } }],
      { turn: 1, context: { vaultOpen: false } },
    );
    expect(result.feedback.failed_calls[0]?.tool_reason).toBe('area_locked');
  });
});

describe('examples in snapshot.ts', () => {
  it('runs the RememberedCall example', async () => {
    const call: RememberedCall = {
      id: 'c1',
      record: {
        id: 'c1',
        turn: 3,
        requested: { tool: 'ping', args: {} },
        outcome: 'executed',
        replayed: false,
      },
      executed: { id: 'c1', tool: 'ping', args: {}, result: 'pong', replayed: false },
    };
  });
  it('runs the ToolGateSnapshot example', async () => {
    const empty: ToolGateSnapshot = { version: 1, turns: [], disabled: [] };
  });
});

describe('examples in limits.ts', () => {
  it('runs the ToolGateLimits example', async () => {
    const small: Partial<ToolGateLimits> = { maxBatchCalls: 16, maxRememberedCalls: 1_000 };
  });
  it('runs the DEFAULT_TOOL_GATE_LIMITS example', async () => {
    expectLogged([DEFAULT_TOOL_GATE_LIMITS.maxBatchCalls], '256');
  });
});

describe('examples in sql-risk.ts', () => {
  it('runs the SqlKind example', async () => {
    const kind: SqlKind = classifySql('TRUNCATE orders').kind;
    expectLogged([kind], 'ddl');
  });
  it('runs the SqlClassification example', async () => {
    const found: SqlClassification = classifySql('SELECT 1; DELETE FROM orders');
    expectLogged(
      [found.statements, found.commands, found.needsConfirmation],
      "2 [ 'SELECT', 'DELETE' ] true",
    );
  });
  it('runs the classifySql example', async () => {
    expectLogged([classifySql('SELECT * FROM orders').needsConfirmation], 'false');
    const hidden = classifySql('WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d');
    expectLogged([hidden.kind, hidden.needsConfirmation, hidden.reason], 'dml true contains DELETE');
    expectLogged([classifySql("SELECT 'DROP TABLE orders'").kind], 'read');
    expectLogged([classifySql('SET search_path TO x').controlsSession], 'true');
  });
});
