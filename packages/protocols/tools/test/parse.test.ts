import { describe, expect, it } from 'vitest';
import { createToolGate, parseAnthropicToolUses, parseOpenAIToolCalls } from '../src/index.js';
import { AnthropicToolUseShape, DocumentToolFeedback, OpenAIToolCallShape } from './fixtures/shapes.js';
import { createCampaign, EXPLORING } from './helpers.js';

const moveArgs = { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' };

describe('parseOpenAIToolCalls', () => {
  it('reads Chat Completions tool calls into proposals the gate runs', async () => {
    const toolCalls = [
      { id: 'call_abc', type: 'function', function: { name: 'move', arguments: JSON.stringify(moveArgs) } },
    ];
    expect(OpenAIToolCallShape.safeParse(toolCalls[0]).success).toBe(true);
    const parsed = parseOpenAIToolCalls(toolCalls);
    expect(parsed).toEqual({ calls: [{ id: 'call_abc', tool: 'move', args: moveArgs }], failed_calls: [] });
    const { tools, positions } = createCampaign();
    const gate = createToolGate({ tools, allowlist: ['move', 'hp_delta'] });
    await gate.process(parsed.calls, { turn: 1, context: EXPLORING });
    expect(positions.get('pc_1')).toBe('vault');
  });

  it('reads Responses API function_call items and skips the other output items', () => {
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'hp_delta', arguments: '{"delta":-2}' },
      { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
    ];
    expect(parseOpenAIToolCalls(output)).toEqual({
      calls: [{ id: 'call_1', tool: 'hp_delta', args: { delta: -2 } }],
      failed_calls: [],
    });
  });

  it('reads empty arguments as an empty object', () => {
    const parsed = parseOpenAIToolCalls([
      { id: 'c1', type: 'function', function: { name: 'ping', arguments: ' ' } },
    ]);
    expect(parsed.calls).toEqual([{ id: 'c1', tool: 'ping', args: {} }]);
  });

  it.each([
    ['{"actor_id":', 'json_syntax'],
    ['{"__proto__":{"admin":true}}', 'json_forbidden_key'],
    ['[1,2]', 'not a JSON object'],
    ['"text"', 'not a JSON object'],
  ])('refuses the arguments %s as invalid_args, in tool_feedback form', (text, why) => {
    const parsed = parseOpenAIToolCalls([
      { id: 'c1', type: 'function', function: { name: 'move', arguments: text } },
    ]);
    expect(parsed.calls).toEqual([]);
    expect(parsed.failed_calls).toHaveLength(1);
    expect(parsed.failed_calls[0]).toMatchObject({
      id: 'c1',
      tool: 'move',
      status: 'rejected',
      code: 'invalid_args',
    });
    expect(parsed.failed_calls[0]?.reason).toContain(why);
    expect(DocumentToolFeedback.safeParse({ failed_calls: parsed.failed_calls }).success).toBe(true);
  });

  it('applies the JSON limits it is given', () => {
    const parsed = parseOpenAIToolCalls(
      [{ id: 'c1', type: 'function', function: { name: 'move', arguments: JSON.stringify(moveArgs) } }],
      { maxBytes: 10 },
    );
    expect(parsed.failed_calls[0]?.reason).toContain('json_too_large');
  });

  it.each([
    [
      { id: 'c1', type: 'function', function: { name: 'move', arguments: { a: 1 } } },
      'c1',
      'move',
      'invalid_args',
    ],
    [{ id: 'c1', type: 'function', function: { arguments: '{}' } }, 'c1', '', 'invalid_call'],
    [{ type: 'function', function: { name: 'move', arguments: '{}' } }, '#0', 'move', 'invalid_call'],
    [{ type: 'function_call', name: 'move', arguments: '{}' }, '#0', 'move', 'invalid_call'],
    [{ id: 'c1', type: 'custom', custom: { name: 'grep', input: 'x' } }, 'c1', 'grep', 'invalid_call'],
    [{ type: 'custom_tool_call', call_id: 'c2', name: 'grep', input: 'x' }, 'c2', 'grep', 'invalid_call'],
    [{ id: 'c1' }, 'c1', '', 'invalid_call'],
    ['call', '#0', '', 'invalid_call'],
  ])('refuses the malformed item %j', (item, id, tool, code) => {
    const parsed = parseOpenAIToolCalls([item]);
    expect(parsed.calls).toEqual([]);
    expect(parsed.failed_calls).toEqual([expect.objectContaining({ id, tool, code, status: 'rejected' })]);
  });

  it('refuses a value that is not a list', () => {
    expect(() => parseOpenAIToolCalls({} as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('parseAnthropicToolUses', () => {
  it('reads tool_use blocks and skips text and thinking', () => {
    const block = { type: 'tool_use', id: 'toolu_01', name: 'move', input: moveArgs };
    expect(AnthropicToolUseShape.safeParse(block).success).toBe(true);
    const parsed = parseAnthropicToolUses([
      { type: 'thinking', thinking: '...', signature: 's' },
      { type: 'text', text: 'I move.' },
      block,
    ]);
    expect(parsed).toEqual({ calls: [{ id: 'toolu_01', tool: 'move', args: moveArgs }], failed_calls: [] });
  });

  it.each([
    [{ type: 'tool_use', id: 'toolu_1', name: 'move', input: 'x' }, 'toolu_1', 'move', 'invalid_args'],
    [{ type: 'tool_use', id: 'toolu_1', name: 'move', input: null }, 'toolu_1', 'move', 'invalid_args'],
    [{ type: 'tool_use', name: 'move', input: {} }, '#0', 'move', 'invalid_call'],
    [{ type: 'tool_use', id: 'toolu_1', input: {} }, 'toolu_1', '', 'invalid_call'],
    [{ id: 'toolu_1', name: 'move', input: {} }, 'toolu_1', 'move', 'invalid_call'],
    [null, '#0', '', 'invalid_call'],
  ])('refuses the malformed block %j', (block, id, tool, code) => {
    const parsed = parseAnthropicToolUses([block]);
    expect(parsed.calls).toEqual([]);
    expect(parsed.failed_calls).toEqual([expect.objectContaining({ id, tool, code, status: 'rejected' })]);
  });

  it('refuses a value that is not a list', () => {
    expect(() => parseAnthropicToolUses('content' as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
