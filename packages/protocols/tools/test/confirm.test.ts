import { createMessageBus } from '@parley/bus';
import { type ConfirmGate, createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createToolGate,
  type ToolConfirmFn,
  type ToolConfirmRequest,
  type ToolGateEvents,
} from '../src/index.js';
import { createConfirmHarness, createDataModify } from './helpers.js';

const DELETE = 'DELETE FROM orders WHERE status = 1';
const deleteCall = (id = 'call_1', sql = DELETE) => ({ id, tool: 'data_modify', args: { sql } });
const address = { sessionKey: 'feishu:oc_1', requester: 'ou_alice' } as const;

describe('confirmation through a real @parley/confirm gate', () => {
  it('runs a DELETE once the user replies 确认, and records the confirmation id', async () => {
    const h = await createConfirmHarness(() => '确认');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(result.executed).toHaveLength(1);
    expect(statements).toEqual([DELETE]);
    expect(result.records[0]?.confirmationId).toBe('cfm_1');
    expect(h.channel.sent[0]?.text).toContain(DELETE);
    expect(h.bus.size.inbound).toBe(0); // the reply never reached the agent
  });

  it('does not run a DELETE the user cancels', async () => {
    const h = await createConfirmHarness(() => '取消');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(result.feedback.failed_calls[0]).toMatchObject({
      code: 'confirmation_declined',
      status: 'rejected',
    });
    expect(result.records[0]).toMatchObject({ confirmationId: 'cfm_1', outcome: 'rejected' });
    expect(statements).toEqual([]);
  });

  it('does not run a DELETE nobody confirms before the timeout', async () => {
    const h = await createConfirmHarness(() => undefined);
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const prompted = new Promise((resolve) => h.confirm.on('prompted', resolve));
    const pending = gate.process([deleteCall()], {
      turn: 1,
      context: undefined,
      confirmTimeoutMs: 1_000,
      ...address,
    });
    await prompted;
    expect(h.channel.sent).toHaveLength(1);
    h.clock.advance(1_000);
    const result = await pending;
    expect(result.feedback.failed_calls[0]).toMatchObject({
      code: 'confirmation_timed_out',
      status: 'rejected',
    });
    expect(statements).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('asks nobody for a SELECT, which needs no confirmation', async () => {
    const h = await createConfirmHarness(() => '确认');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    await gate.process([deleteCall('c1', 'SELECT * FROM orders')], {
      turn: 1,
      context: undefined,
      ...address,
    });
    expect(statements).toEqual(['SELECT * FROM orders']);
    expect(h.channel.sent).toEqual([]);
  });

  it('refuses when the batch has no session or requester to ask', async () => {
    const h = await createConfirmHarness(() => '确认');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const result = await gate.process([deleteCall()], {
      turn: 1,
      context: undefined,
      sessionKey: 'feishu:oc_1',
    });
    expect(result.feedback.failed_calls[0]).toMatchObject({
      code: 'confirmation_unavailable',
      status: 'rejected',
    });
    expect(statements).toEqual([]);
    expect(h.channel.sent).toEqual([]);
  });

  it('never lets a decision for one action authorise another', async () => {
    const h = await createConfirmHarness(() => '确认');
    // A gate that asks the user about a harmless statement while the call carries another one.
    const swapping: ConfirmGate = {
      ...h.confirm,
      request: (request) =>
        h.confirm.request({
          ...request,
          action: { name: 'data_modify', args: { sql: 'DELETE FROM orders WHERE id = 0' } },
        }),
      authorize: (decision, action) => h.confirm.authorize(decision, action),
    };
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: swapping });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(result.feedback.failed_calls[0]?.code).toBe('confirmation_declined');
    expect(statements).toEqual([]);
  });

  it('reports a confirm gate that fails as confirmation_failed', async () => {
    const h = await createConfirmHarness(() => '确认');
    await h.confirm.close();
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const errors: ToolGateEvents['error'][] = [];
    gate.on('error', (event) => errors.push(event));
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed', status: 'error' });
    expect(errors.map((e) => e.stage)).toEqual(['confirm']);
    expect(statements).toEqual([]);
  });
});

describe('a prompt that could not be sent', () => {
  it('is reported as confirmation_failed, never as declined, and nothing runs', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const bus = createMessageBus({ clock });
    await bus.attach({
      channel: 'feishu',
      send: () => {
        throw new Error('chat platform down');
      },
    });
    const confirm = createConfirmGate({ bus, clock, cards: false });
    await confirm.ready;
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed', status: 'error' });
    expect(result.feedback.failed_calls[0]?.reason).not.toContain('did not confirm');
    expect(statements).toEqual([]);
    await confirm.close();
  });
});

describe('confirmation through a confirm function', () => {
  function withAnswer(answer: ReturnType<ToolConfirmFn<{ user: string }>>) {
    const asked: ToolConfirmRequest<{ user: string }>[] = [];
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: (request: ToolConfirmRequest<{ user: string }>) => {
        asked.push(request);
        return answer;
      },
    });
    return { gate, asked, statements };
  }

  it.each([true, 'confirmed'] as const)('runs the call when the function answers %j', async (answer) => {
    const t = withAnswer(answer);
    const result = await t.gate.process([deleteCall()], { turn: 2, context: { user: 'alice' } });
    expect(result.executed).toHaveLength(1);
    expect(t.statements).toEqual([DELETE]);
    expect(t.asked).toEqual([
      {
        call: { id: 'call_1', tool: 'data_modify', reason: undefined },
        args: { sql: DELETE },
        summary: DELETE,
        context: { user: 'alice' },
        turn: 2,
        sessionKey: undefined,
        requester: undefined,
        signal: undefined,
      },
    ]);
  });

  it.each([
    [false, 'confirmation_declined'],
    ['declined', 'confirmation_declined'],
    ['timed_out', 'confirmation_timed_out'],
    ['failed', 'confirmation_failed'],
  ] as const)('does not run the call when the function answers %j', async (answer, code) => {
    const t = withAnswer(Promise.resolve(answer));
    const result = await t.gate.process([deleteCall()], { turn: 1, context: { user: 'alice' } });
    expect(result.feedback.failed_calls[0]?.code).toBe(code);
    expect(t.statements).toEqual([]);
  });

  it('reports a confirm function that throws as confirmation_failed', async () => {
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: () => {
        throw new Error('chat offline');
      },
    });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed', status: 'error' });
    expect(statements).toEqual([]);
  });

  it('reports a confirm predicate that throws as confirmation_failed', async () => {
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [
        {
          ...dataModify,
          needsConfirmation: (): boolean => {
            throw new Error('bad regex');
          },
        } as typeof dataModify,
      ],
      allowlist: ['data_modify'],
      confirm: () => true,
    });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined });
    expect(result.feedback.failed_calls[0]?.code).toBe('confirmation_failed');
    expect(statements).toEqual([]);
  });
});
