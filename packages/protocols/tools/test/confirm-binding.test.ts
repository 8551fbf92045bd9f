import type { ConfirmAction, ConfirmGate } from '@parley/confirm';
import type { StandardSchemaV1 } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolConfirmRequest, type ToolGateEvents } from '../src/index.js';
import { createConfirmHarness } from './helpers.js';

const address = { sessionKey: 'feishu:oc_1', requester: 'ou_alice' } as const;

/** A Standard Schema that accepts any object and hands back the very same object. */
const sameObject: StandardSchemaV1<Record<string, unknown>, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

describe('what a confirmation is bound to', () => {
  it('[CALLID-10] binds the confirm gate decision to the validated arguments the executor runs with', async () => {
    const h = await createConfirmHarness(() => '确认');
    const asked: ConfirmAction[] = [];
    const spy: ConfirmGate = {
      ...h.confirm,
      request: (request) => {
        asked.push(request.action);
        return h.confirm.request(request);
      },
    };
    const ran: unknown[] = [];
    const drop = defineTool({
      name: 'drop_table',
      description: 'Drops a table',
      args: z.object({ table: z.string(), cascade: z.boolean().default(true) }),
      reasons: [],
      confirm: true,
      execute: (args) => {
        ran.push(args);
        return null;
      },
    });
    const gate = createToolGate({ tools: [drop], allowlist: ['drop_table'], confirm: spy });
    const result = await gate.process([{ id: 'c1', tool: 'drop_table', args: { table: 'orders' } }], {
      turn: 1,
      context: undefined,
      ...address,
    });
    expect(result.executed).toHaveLength(1);
    expect(asked).toEqual([{ name: 'drop_table', args: { cascade: true, table: 'orders' } }]);
    expect(ran).toEqual([{ cascade: true, table: 'orders' }]);
  });

  it('[CALLID-10] runs exactly what was confirmed even when the confirm function changes the arguments it was shown', async () => {
    const ran: unknown[] = [];
    const drop = defineTool({
      name: 'drop_table',
      description: 'Drops a table',
      args: sameObject,
      reasons: [],
      confirm: true,
      execute: (args) => {
        ran.push({ ...args });
        return null;
      },
    });
    const gate = createToolGate({
      tools: [drop],
      allowlist: ['drop_table'],
      confirm: (request) => {
        (request.args as Record<string, unknown>)['table'] = 'users';
        return true;
      },
    });
    await gate.process([{ id: 'c1', tool: 'drop_table', args: { table: 'orders' } }], {
      turn: 1,
      context: undefined,
    });
    expect(ran).toEqual([{ table: 'orders' }]);
  });

  it('[CALLID-10] shows the default summary with the tool name and the arguments in canonical key order', async () => {
    const asked: ToolConfirmRequest<unknown>[] = [];
    const dataModify = defineTool({
      name: 'data_modify',
      description: 'Runs SQL',
      args: z.object({ statement: z.string(), comment: z.string() }),
      reasons: [],
      confirm: true,
      execute: () => null,
    });
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: (request) => {
        asked.push(request);
        return false;
      },
    });
    const args = { statement: 'DROP TABLE orders', comment: 'routine cleanup' };
    await gate.process([{ id: 'c1', tool: 'data_modify', args }], { turn: 1, context: undefined });
    expect(asked[0]?.summary).toBe(
      'data_modify {"comment":"routine cleanup","statement":"DROP TABLE orders"}',
    );
    expect(asked[0]?.args).toEqual(args);
  });

  it('refuses confirmation_failed, asking nobody, when the validated arguments are not JSON', async () => {
    let asked = 0;
    let ran = 0;
    const schedule = defineTool({
      name: 'schedule_wipe',
      description: 'Schedules a wipe',
      args: z.object({ at: z.string().transform((text) => new Date(text)) }),
      reasons: [],
      confirm: true,
      summarize: () => 'wipe',
      execute: () => ++ran,
    });
    const gate = createToolGate({
      tools: [schedule],
      allowlist: ['schedule_wipe'],
      confirm: () => {
        asked++;
        return true;
      },
    });
    const errors: ToolGateEvents['error'][] = [];
    gate.on('error', (event) => errors.push(event));
    const result = await gate.process([{ id: 'c1', tool: 'schedule_wipe', args: { at: '2026-01-01' } }], {
      turn: 1,
      context: undefined,
    });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed', status: 'error' });
    expect(errors.map((event) => event.stage)).toEqual(['confirm']);
    expect([asked, ran]).toEqual([0, 0]);
  });
});
