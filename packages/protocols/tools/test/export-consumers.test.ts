// The function-calling exports checked against their consumers: the OpenAI SDK's own strict-schema
// transform and types, the Anthropic SDK's types, the MCP SDK's Tool schema, and ajv for the JSON
// Schema itself. A tool the SDK would rewrite, or a schema ajv reads differently from the args
// schema, is a broken export.
import type Anthropic from '@anthropic-ai/sdk';
import { type Tool as McpSdkTool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { isParleyError } from '@parley/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type OpenAI from 'openai';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyToolDefinition,
  defineTool,
  toAnthropicTools,
  toMcpTools,
  toOpenAIResponsesTools,
  toOpenAITools,
  toToolJsonSchema,
} from '../src/index.js';

const Action = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('move'), to: z.string() }),
  z.strictObject({ kind: z.literal('wait'), turns: z.number().int() }),
  z.strictObject({ kind: z.enum(['rest', 'camp']), hours: z.number() }),
]);
const ActArgs = z.strictObject({ action: Action, note: z.string() });
const act = defineTool({
  name: 'act',
  description: 'Acts',
  args: ActArgs,
  reasons: [],
  strict: true,
  execute: () => 1,
});
const aim = defineTool({
  name: 'aim',
  description: 'Aims at a point',
  args: z.strictObject({ at: z.tuple([z.number(), z.number()]) }),
  reasons: [],
  execute: () => 1,
});

/** The keywords OpenAI's strict mode does not take, wherever they appear. */
const STRICT_UNSUPPORTED = [
  'oneOf',
  'prefixItems',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
];

function keywordsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) keywordsIn(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      found.add(key);
      keywordsIn(value, found);
    }
  }
  return found;
}

function refusal(run: () => unknown): { code: string; details: Record<string, unknown> } | undefined {
  try {
    run();
  } catch (error) {
    if (isParleyError(error)) return { code: error.code, details: { ...error.details } };
    throw error;
  }
  return undefined;
}

function hand(jsonSchema: Record<string, unknown>): AnyToolDefinition {
  return defineTool({
    name: 'hand',
    description: 'd',
    args: z.object({}),
    reasons: [],
    jsonSchema,
    execute: () => 1,
  });
}

const samples: unknown[] = [
  { action: { kind: 'move', to: 'gate' }, note: '' },
  { action: { kind: 'wait', turns: 2 }, note: 'n' },
  { action: { kind: 'camp', hours: 8 }, note: 'n' },
  { action: { kind: 'wait', to: 'gate' }, note: 'n' },
  { action: { kind: 'move', to: 'gate', turns: 1 }, note: 'n' },
  { action: { kind: 'fly', to: 'x' }, note: 'n' },
  { action: { kind: 'wait', turns: 1.5 }, note: 'n' },
  { action: { to: 'gate' }, note: 'n' },
  { note: 'n' },
];

describe('strict OpenAI export of unions and tuples', () => {
  it('turns a discriminated union into an anyOf that the OpenAI SDK’s strict transform leaves as it is', () => {
    const [chat] = toOpenAITools([act]);
    const parameters = chat?.function.parameters as Record<string, unknown>;
    expect(chat?.function.strict).toBe(true);
    expect(STRICT_UNSUPPORTED.filter((k) => keywordsIn(parameters).has(k))).toEqual([]);
    expect(toStrictJsonSchema(parameters as never)).toEqual(parameters);
    const [responses] = toOpenAIResponsesTools([act]);
    expect(responses?.parameters).toEqual(parameters);
  });

  it('accepts, read by ajv, exactly the args the zod schema accepts', () => {
    const parameters = toOpenAITools([act])[0]?.function.parameters ?? { type: 'object' };
    const check = new Ajv2020({ strict: false }).compile(parameters);
    expect(samples.map((s) => check(s))).toEqual(samples.map((s) => ActArgs.safeParse(s).success));
    expect(samples.filter((s) => check(s))).toHaveLength(3);
  });

  it('keeps the oneOf of a non-strict export, which ajv reads the same way', () => {
    const parameters = toOpenAITools([act], { strict: false })[0]?.function.parameters ?? { type: 'object' };
    expect(keywordsIn(parameters).has('oneOf')).toBe(true);
    const check = new Ajv2020({ strict: false }).compile(parameters);
    expect(check(samples[0])).toBe(true);
    expect(check(samples[3])).toBe(false);
  });

  it('refuses a tuple in strict mode with strict_incompatible naming prefixItems and where it is', () => {
    expect(refusal(() => toOpenAITools([aim], { strict: true }))).toEqual({
      code: 'strict_incompatible',
      details: { tool: 'aim', path: 'properties.at', keyword: 'prefixItems' },
    });
    const check = new Ajv2020({ strict: false }).compile(toToolJsonSchema(aim));
    expect([check({ at: [1, 2] }), check({ at: [1, 'x'] }), check({ at: [1, 2, 3] })]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('refuses in strict mode a oneOf whose branches may both match', () => {
    const closed = { type: 'object', additionalProperties: false };
    const overlapping = hand({
      ...closed,
      properties: { v: { oneOf: [{ type: 'string' }, { type: 'string', minLength: 2 }] } },
      required: ['v'],
    });
    expect(refusal(() => toOpenAIResponsesTools([overlapping], { strict: true }))).toMatchObject({
      code: 'strict_incompatible',
      details: { path: 'properties.v', keyword: 'oneOf' },
    });
    const branch = (kind: unknown) => ({
      ...closed,
      properties: { kind: { const: kind } },
      required: ['kind'],
    });
    const sameTag = hand({
      ...closed,
      properties: { v: { oneOf: [branch('a'), branch('a')] } },
      required: ['v'],
    });
    expect(refusal(() => toOpenAITools([sameTag], { strict: true }))?.details.keyword).toBe('oneOf');
    const optionalTag = hand({
      ...closed,
      properties: { v: { oneOf: [branch('a'), { ...branch('b'), required: [] }] } },
      required: ['v'],
    });
    expect(refusal(() => toOpenAITools([optionalTag], { strict: true }))?.details.keyword).toBe('oneOf');
    const notObject = hand({ ...closed, properties: { v: { oneOf: [branch('a'), true] } }, required: ['v'] });
    expect(refusal(() => toOpenAITools([notObject], { strict: true }))?.details.keyword).toBe('oneOf');
  });

  it('refuses in strict mode the other keywords strict mode lacks', () => {
    const closed = { type: 'object', additionalProperties: false, properties: {}, required: [] };
    for (const keyword of ['allOf', 'not', 'if', 'patternProperties']) {
      const tool = hand({ ...closed, [keyword]: keyword === 'allOf' ? [closed] : {} });
      expect(refusal(() => toOpenAITools([tool], { strict: true }))?.details).toMatchObject({
        path: '',
        keyword,
      });
    }
    expect(toOpenAITools([hand({ ...closed, not: {} })])[0]?.function).not.toHaveProperty('strict');
  });
});

describe('exports typed by the SDKs that take them', () => {
  it('fit the OpenAI, Anthropic and MCP SDKs’ tool types and the MCP Tool schema', () => {
    const tools = [act, aim];
    const chat: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = toOpenAITools(tools, {
      strict: false,
    });
    const responses: OpenAI.Responses.FunctionTool[] = toOpenAIResponsesTools([act]);
    const anthropic: Anthropic.Tool[] = toAnthropicTools(tools);
    const mcp: McpSdkTool[] = toMcpTools(tools);
    expect([chat.length, responses.length, anthropic.length]).toEqual([2, 1, 2]);
    expect(mcp.map((tool) => ToolSchema.safeParse(tool).success)).toEqual([true, true]);
  });
});
