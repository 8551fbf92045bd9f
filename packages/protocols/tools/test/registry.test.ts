import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkToolRegistry,
  createToolGate,
  defineTool,
  TOOLS_ERROR_CODES,
  type ToolsErrorCode,
} from '../src/index.js';
import { createCampaign, createDataModify } from './helpers.js';

const base = { name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isParleyError<ToolsErrorCode>(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('defineTool', () => {
  it('returns a frozen static definition', () => {
    const tool = defineTool({ ...base, title: 'Ping', strict: true });
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool).toMatchObject({
      kind: 'parley.tool',
      name: 'ping',
      title: 'Ping',
      confirmation: 'never',
      strict: true,
    });
    expect(tool.needsConfirmation({}, undefined)).toBe(false);
    expect(tool.summarize({})).toBe('ping {}');
  });

  it('tells always, never and per-call confirmation apart', () => {
    expect(defineTool({ ...base, confirm: true }).confirmation).toBe('always');
    expect(defineTool({ ...base, confirm: true }).needsConfirmation({}, undefined)).toBe(true);
    const { dataModify } = createDataModify();
    expect(dataModify.confirmation).toBe('per_call');
    expect(dataModify.needsConfirmation({ sql: 'drop table orders' }, undefined)).toBe(true);
    expect(dataModify.needsConfirmation({ sql: 'select 1' }, undefined)).toBe(false);
    expect(dataModify.summarize({ sql: 'select 1' })).toBe('select 1');
  });

  it('summarises by default with the tool name and the arguments in canonical key order', () => {
    const tool = defineTool({ ...base, name: 'data_modify', args: z.any() });
    const padded = { comment: 'routine cleanup', statement: 'DROP TABLE orders', after: -0 };
    expect(tool.summarize(padded)).toBe(
      'data_modify {"after":-0,"comment":"routine cleanup","statement":"DROP TABLE orders"}',
    );
    expect(tool.summarize(JSON.parse('{"b":1,"__proto__":{"a":2}}'))).toBe(
      'data_modify {"__proto__":{"a":2},"b":1}',
    );
  });

  it('refuses to summarise by default arguments that are not JSON, so nothing unclear is confirmed', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const tool = defineTool({ ...base, args: z.any() });
    expect(() => tool.summarize(cyclic)).toThrow(expect.objectContaining({ code: 'json_not_serializable' }));
    expect(() => tool.summarize(undefined)).toThrow(
      expect.objectContaining({ code: 'json_not_serializable' }),
    );
  });

  it.each([
    [{ name: 'bad name' }, 'invalid_tool'],
    [{ name: '' }, 'invalid_tool'],
    [{ name: 'x'.repeat(65) }, 'invalid_tool'],
    [{ name: 42 }, 'invalid_tool'],
    [{ description: ' ' }, 'invalid_tool'],
    [{ title: 3 }, 'invalid_tool'],
    [{ execute: 'run' }, 'invalid_tool'],
    [{ confirm: 'yes' }, 'invalid_tool'],
    [{ jsonSchema: 'object' }, 'invalid_tool'],
    [{ args: { type: 'object' } }, 'missing_args_schema'],
    [{ args: undefined }, 'missing_args_schema'],
    [{ reasons: null }, 'missing_reasons'],
    [{ reasons: 'none' }, 'missing_reasons'],
    [{ reasons: ['a', 'a'] }, 'missing_reasons'],
    [{ reasons: [''] }, 'missing_reasons'],
  ])('refuses %j with %s', (override, code) => {
    // JavaScript callers can pass anything; the definition is checked at run time too.
    expect(codeOf(() => defineTool({ ...base, ...override } as never))).toBe(code);
  });

  it('refuses something that is not an object', () => {
    expect(codeOf(() => defineTool(null as never))).toBe('invalid_tool');
  });

  it('takes a tool without reasons as one that cannot refuse', () => {
    const { reasons: _reasons, ...rest } = base;
    const ping = defineTool({ ...rest, name: 'ping', execute: () => 'pong' });
    expect(ping.reasons).toEqual([]);
    expect(Object.isFrozen(ping.reasons)).toBe(true);
  });
});

describe('the registry check at start-up', () => {
  const { move, hpDelta } = createCampaign();

  it('accepts tools that follow every extension rule', () => {
    expect(() =>
      checkToolRegistry({ tools: [move, hpDelta], allowlist: ['hp_delta', 'move'], confirmAvailable: false }),
    ).not.toThrow();
  });

  it('refuses a tool that is not named in the allowlist', () => {
    expect(codeOf(() => createToolGate({ tools: [move, hpDelta], allowlist: ['move'] as never }))).toBe(
      'not_in_allowlist',
    );
  });

  it('refuses an allowlist entry that names no registered tool', () => {
    expect(codeOf(() => createToolGate({ tools: [move], allowlist: ['move', 'fly'] as never }))).toBe(
      'unknown_allowlist_entry',
    );
    expect(codeOf(() => createToolGate({ tools: [move], allowlist: ['move', '__proto__'] as never }))).toBe(
      'unknown_allowlist_entry',
    );
  });

  it('refuses two tools with one name', () => {
    expect(codeOf(() => createToolGate({ tools: [move, move], allowlist: ['move'] }))).toBe('duplicate_tool');
  });

  it('refuses a hand-made tool without an args schema or reasons', () => {
    expect(
      codeOf(() =>
        createToolGate({ tools: [{ ...move, args: undefined } as never], allowlist: ['move'] as never }),
      ),
    ).toBe('missing_args_schema');
    expect(
      codeOf(() =>
        createToolGate({ tools: [{ ...move, reasons: 'none' } as never], allowlist: ['move'] as never }),
      ),
    ).toBe('missing_reasons');
  });

  it('refuses an object that was not made with defineTool', () => {
    const { kind: _kind, ...rest } = move;
    expect(codeOf(() => createToolGate({ tools: [rest as never], allowlist: ['move'] as never }))).toBe(
      'invalid_tool',
    );
  });

  it('refuses a tool that needs confirmation when no way to confirm is configured', () => {
    const { dataModify } = createDataModify();
    expect(codeOf(() => createToolGate({ tools: [dataModify], allowlist: ['data_modify'] }))).toBe(
      'confirm_unavailable',
    );
  });

  it.each([
    [{ tools: 'move' }, 'invalid_argument'],
    [{ allowlist: 'move' }, 'invalid_argument'],
    [{ policies: {} }, 'invalid_argument'],
    [{ policies: [{ name: 'x' }] }, 'invalid_argument'],
    [{ policies: [{ name: '', check: (): boolean => true }] }, 'invalid_argument'],
    [{ policies: [{ name: 'x', tools: ['fly'], check: (): boolean => true }] }, 'invalid_argument'],
    [{ confirm: 'yes' }, 'invalid_argument'],
    [{ confirm: {} }, 'invalid_argument'],
    [{ repair: 'fix' }, 'invalid_argument'],
    [{ keepTurns: 0 }, 'invalid_argument'],
    [{ keepTurns: 1.5 }, 'invalid_argument'],
  ])('refuses the option %j', (override, code) => {
    expect(codeOf(() => createToolGate({ tools: [move], allowlist: ['move'], ...override } as never))).toBe(
      code,
    );
  });

  it('lists every error code it can throw', () => {
    expect(TOOLS_ERROR_CODES).toContain('not_in_allowlist');
    expect(new Set(TOOLS_ERROR_CODES).size).toBe(TOOLS_ERROR_CODES.length);
  });
});

describe('ToolGate.disable', () => {
  const { move, hpDelta } = createCampaign();
  const gate = createToolGate({ tools: [move, hpDelta], allowlist: ['move', 'hp_delta'] });

  it.each([
    ['fly', { turn: 2 }],
    ['__proto__', { turn: 2 }],
    ['move', { turn: 1.5 }],
    ['move', { at: Number.NaN }],
    ['move', { at: 9e15 }],
    ['move', {}],
    ['move', null],
  ])('refuses to disable %s until %j', (tool, until) => {
    expect(codeOf(() => gate.disable(tool as never, until as never))).toBe('invalid_argument');
    expect(gate.disabled()).toEqual([]);
  });

  it('refuses a batch without an integer turn', async () => {
    await expect(gate.process([], { turn: 1.5, context: undefined })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(gate.process([], null as never)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(gate.process('calls' as never, { turn: 1, context: undefined })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('lists its canonical names in registration order', () => {
    expect(gate.names).toEqual(['move', 'hp_delta']);
  });
});
