import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { isParleyError } from '@parley/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  toAnthropicTools,
  toMcpTools,
  toOpenAIResponsesTools,
  toOpenAITools,
  toToolJsonSchema,
} from '../src/index.js';
import {
  AnthropicToolShape,
  McpToolShape,
  OpenAIChatToolShape,
  OpenAIResponsesToolShape,
} from './fixtures/shapes.js';
import { createCampaign, createDataModify } from './helpers.js';

const { move, hpDelta } = createCampaign();
const { dataModify } = createDataModify();
const tools = [move, hpDelta, dataModify];

const strictTool = defineTool({
  name: 'roll',
  description: 'Rolls dice',
  args: z.strictObject({ dice: z.string(), modifiers: z.array(z.strictObject({ n: z.number() })) }),
  reasons: [],
  strict: true,
  execute: () => 4,
});

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isParleyError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('toToolJsonSchema', () => {
  it('converts the args schema to an object JSON Schema without $schema', () => {
    const schema = toToolJsonSchema(move);
    expect(schema).toMatchObject({
      type: 'object',
      properties: { actor_id: { type: 'string' }, path_id: { type: 'string' } },
      required: ['actor_id', 'from_area_id', 'to_area_id'],
    });
    expect(schema).not.toHaveProperty('$schema');
  });

  it('uses a hand-written jsonSchema, copied so callers cannot change the tool', () => {
    const written = { type: 'object', properties: { a: { type: 'string' } }, $schema: 'x' } as const;
    const tool = defineTool({
      name: 'hand',
      description: 'd',
      args: v.object({ a: v.string() }),
      reasons: [],
      jsonSchema: written,
      execute: () => 1,
    });
    const schema = toToolJsonSchema(tool);
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    (schema.properties as Record<string, unknown>)['b'] = {};
    expect(toToolJsonSchema(tool)).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('refuses clearly a schema that cannot describe itself', () => {
    const tool = defineTool({
      name: 'vb',
      description: 'd',
      args: v.object({ a: v.string() }),
      reasons: [],
      execute: () => 1,
    });
    expect(codeOf(() => toToolJsonSchema(tool))).toBe('schema_not_convertible');
    for (const exporter of [toOpenAITools, toOpenAIResponsesTools, toAnthropicTools, toMcpTools]) {
      expect(codeOf(() => exporter([tool]))).toBe('schema_not_convertible');
    }
  });

  it('refuses a zod schema holding a type JSON Schema cannot express', () => {
    const tool = defineTool({
      name: 'when',
      description: 'd',
      args: z.object({ at: z.date() }),
      reasons: [],
      execute: () => 1,
    });
    expect(codeOf(() => toToolJsonSchema(tool))).toBe('schema_not_convertible');
  });

  it('refuses args that are not an object', () => {
    const tool = defineTool({
      name: 'text',
      description: 'd',
      args: z.string(),
      reasons: [],
      execute: () => 1,
    });
    expect(codeOf(() => toToolJsonSchema(tool))).toBe('schema_not_convertible');
  });

  it('refuses something that is not a tool', () => {
    expect(codeOf(() => toToolJsonSchema({ name: 'x' } as never))).toBe('invalid_tool');
    expect(codeOf(() => toOpenAITools('x' as never))).toBe('invalid_argument');
  });
});

describe('OpenAI exports', () => {
  it('match the Chat Completions tools shape', () => {
    const exported = toOpenAITools(tools);
    expect(exported.map((tool) => OpenAIChatToolShape.safeParse(tool).error)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(exported[0]).toEqual({
      type: 'function',
      function: { name: 'move', description: move.description, parameters: toToolJsonSchema(move) },
    });
  });

  it('match the Responses API tools shape and always say whether they are strict', () => {
    const exported = toOpenAIResponsesTools([...tools, strictTool]);
    expect(exported.map((tool) => OpenAIResponsesToolShape.safeParse(tool).error)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(exported.map((tool) => tool.strict)).toEqual([false, false, false, true]);
  });

  it('mark a strict tool whose schema closes every object and requires every property', () => {
    const [tool] = toOpenAITools([strictTool]);
    expect(tool?.function.strict).toBe(true);
    expect(OpenAIChatToolShape.safeParse(tool).success).toBe(true);
  });

  it('refuse strict mode for a schema with an optional property or an open object', () => {
    expect(codeOf(() => toOpenAITools([move], { strict: true }))).toBe('strict_incompatible');
    const open = defineTool({
      name: 'open',
      description: 'd',
      args: z.object({ a: z.string() }),
      reasons: [],
      strict: true,
      execute: () => 1,
    });
    expect(codeOf(() => toOpenAIResponsesTools([open]))).toBe('strict_incompatible');
    const nested = defineTool({
      name: 'nested',
      description: 'd',
      args: z.strictObject({ list: z.array(z.object({ a: z.string() })) }),
      reasons: [],
      execute: () => 1,
    });
    try {
      toOpenAITools([nested], { strict: true });
      expect.unreachable();
    } catch (error) {
      expect(isParleyError(error, 'strict_incompatible') && error.details['path']).toBe(
        'properties.list.items',
      );
    }
  });

  it('check strict mode through $defs, unions and array items', () => {
    const hand = (jsonSchema: Record<string, unknown>) =>
      defineTool({
        name: 'hand',
        description: 'd',
        args: z.object({}),
        reasons: [],
        jsonSchema,
        execute: () => 1,
      });
    const closed = { type: 'object', properties: {}, required: [], additionalProperties: false };
    const ok = hand({
      ...closed,
      $defs: { a: closed },
      anyOf: [closed, { type: 'string' }],
      items: closed,
    });
    expect(toOpenAITools([ok], { strict: true })[0]?.function.strict).toBe(true);
    const badDef = hand({ ...closed, $defs: { a: { type: 'object' } } });
    expect(codeOf(() => toOpenAITools([badDef], { strict: true }))).toBe('strict_incompatible');
    const badUnion = hand({ ...closed, anyOf: [{ properties: { x: {} }, additionalProperties: false }] });
    expect(codeOf(() => toOpenAITools([badUnion], { strict: true }))).toBe('strict_incompatible');
  });

  it('let the option turn strict off for a strict tool', () => {
    expect(toOpenAITools([strictTool], { strict: false })[0]?.function.strict).toBe(false);
  });
});

describe('Anthropic and MCP exports', () => {
  it('match the Anthropic Messages tools shape', () => {
    const exported = toAnthropicTools(tools);
    expect(exported.map((tool) => AnthropicToolShape.safeParse(tool).error)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(exported[1]).toEqual({
      name: 'hp_delta',
      description: hpDelta.description,
      input_schema: toToolJsonSchema(hpDelta),
    });
  });

  it('match the MCP tool listing shape, with the title when there is one', () => {
    const exported = toMcpTools(tools);
    expect(exported.map((tool) => McpToolShape.safeParse(tool).error)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(exported[0]?.title).toBe('Move');
    expect(exported[1]).not.toHaveProperty('title');
  });

  it('are accepted by the MCP SDK as a tools/list result', () => {
    const result = ListToolsResultSchema.safeParse({ tools: toMcpTools(tools) });
    expect(result.success).toBe(true);
  });

  it('export the same parameters everywhere', () => {
    const schema = toToolJsonSchema(dataModify);
    expect(toOpenAITools([dataModify])[0]?.function.parameters).toEqual(schema);
    expect(toOpenAIResponsesTools([dataModify])[0]?.parameters).toEqual(schema);
    expect(toAnthropicTools([dataModify])[0]?.input_schema).toEqual(schema);
    expect(toMcpTools([dataModify])[0]?.inputSchema).toEqual(schema);
  });
});
