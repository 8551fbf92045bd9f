import type { ConsentFact, ConsentLedger } from '@parley/core';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createToolGate, defineTool, type ToolGateEvents } from '../src/index.js';
import { createConfirmHarness, createDataModify, createThrowingCharge } from './helpers.js';
import { z } from 'zod';

const DELETE = 'DELETE FROM orders WHERE status = 1';
const deleteCall = (id = 'call_1') => ({ id, tool: 'data_modify', args: { sql: DELETE } });
const address = { sessionKey: 'feishu:oc_1', requester: 'ou_alice' } as const;

/** A consent ledger keeping facts in order (a repeated fact once), refusing the kinds in `refuse`. */
function recordingLedger(): ConsentLedger & { facts: ConsentFact[]; refuse: Set<string> } {
  const facts: ConsentFact[] = [];
  const refuse = new Set<string>();
  return {
    facts,
    refuse,
    async append(_session, fact) {
      if (refuse.has(fact.kind)) throw new Error('the store is down');
      if (!facts.some((f) => JSON.stringify(f) === JSON.stringify(fact))) facts.push(fact);
      return { ok: true };
    },
  };
}

const kinds = (facts: readonly ConsentFact[]): string[] => facts.map((f) => f.kind);

function errorsOf(gate: { on: (e: 'error', l: (p: ToolGateEvents['error']) => void) => unknown }) {
  const errors: ToolGateEvents['error'][] = [];
  gate.on('error', (event) => errors.push(event));
  return errors;
}

describe('createToolGate({ ledger })', () => {
  it('records the confirm gate’s chain and the effect once, when both gates share the ledger', async () => {
    const ledger = recordingLedger();
    const h = await createConfirmHarness(() => '确认', { ledger });
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: h.confirm,
      ledger,
    });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(statements).toEqual([DELETE]);
    expect(result.records[0]?.confirmationId).toBe('cfm_1');
    expect(kinds(ledger.facts)).toEqual([
      'request',
      'prompt_delivered',
      'answer',
      'decision',
      'authorization',
      'effect',
    ]);
    expect(ledger.facts.at(-1)).toEqual({ kind: 'effect', confirmationId: 'cfm_1', outcome: 'succeeded' });
  });

  it('records a confirm function’s request, decision, authorization and effect under tool:<turn>:<call id>', async () => {
    const ledger = recordingLedger();
    const { dataModify } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: () => true,
      ledger,
    });
    const result = await gate.process([deleteCall()], { turn: 3, context: undefined, ...address });
    expect(result.executed).toHaveLength(1);
    expect(kinds(ledger.facts)).toEqual(['request', 'decision', 'authorization', 'effect']);
    expect(ledger.facts[1]).toMatchObject({ confirmationId: 'tool:3:call_1', outcome: 'confirmed' });
    expect(result.records[0]?.confirmationId).toBe('tool:3:call_1');
  });

  it('records a declined call’s decision and no authorization, and runs nothing', async () => {
    const ledger = recordingLedger();
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: () => false,
      ledger,
    });
    await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(statements).toEqual([]);
    expect(kinds(ledger.facts)).toEqual(['request', 'decision']);
    expect(ledger.facts[1]).toMatchObject({ outcome: 'cancelled' });
  });

  it('never runs a call whose authorization cannot be recorded', async () => {
    for (const confirm of ['function', 'gate'] as const) {
      const ledger = recordingLedger();
      ledger.refuse.add('authorization');
      const h = await createConfirmHarness(() => '确认');
      const { dataModify, statements } = createDataModify();
      const gate = createToolGate({
        tools: [dataModify],
        allowlist: ['data_modify'],
        confirm: confirm === 'gate' ? h.confirm : () => true,
        ledger,
      });
      const errors = errorsOf(gate);
      const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
      expect(statements).toEqual([]);
      expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed' });
      expect(errors).toEqual([expect.objectContaining({ stage: 'ledger' })]);
      expect(isParleyError(errors[0]?.error, 'not_recorded')).toBe(true);
    }
  });

  it('never asks when the request cannot be recorded, or there is no session to record it in', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('request');
    let asked = 0;
    const { dataModify, statements } = createDataModify();
    const confirm = () => {
      asked++;
      return true;
    };
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm, ledger });
    await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    await gate.process([deleteCall('call_2')], { turn: 1, context: undefined });
    expect(asked).toBe(0);
    expect(statements).toEqual([]);
  });

  it('answers confirmation_failed, not declined, when the confirm gate could not record the authorization', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('authorization');
    const h = await createConfirmHarness(() => '确认', { ledger });
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: h.confirm });
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(statements).toEqual([]);
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed' });
  });

  it('records unknown when the executor throws, and failed with the reason when the tool refuses', async () => {
    const ledger = recordingLedger();
    const { charge } = createThrowingCharge();
    const guarded = defineTool({ ...charge, name: 'charge', confirm: () => true });
    const refusing = defineTool({
      name: 'refund',
      description: 'Refunds',
      args: z.object({}),
      reasons: ['closed_books'],
      confirm: () => true,
      execute: (_args, { reject }) => reject('closed_books'),
    });
    const gate = createToolGate({
      tools: [guarded, refusing],
      allowlist: ['charge', 'refund'],
      confirm: () => true,
      ledger,
    });
    await gate.process(
      [
        { id: 'c1', tool: 'charge', args: { cents: 5 } },
        { id: 'c2', tool: 'refund', args: {} },
      ],
      { turn: 1, context: undefined, ...address },
    );
    const effects = ledger.facts.filter((f) => f.kind === 'effect');
    expect(effects).toEqual([
      { kind: 'effect', confirmationId: 'tool:1:c1', outcome: 'unknown', detail: 'executor_error' },
      { kind: 'effect', confirmationId: 'tool:1:c2', outcome: 'failed', detail: 'closed_books' },
    ]);
  });

  it('keeps the result of a call that ran when its effect cannot be recorded, and reports it', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('effect');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: () => true,
      ledger,
    });
    const errors = errorsOf(gate);
    const result = await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    expect(statements).toEqual([DELETE]);
    expect(result.executed).toHaveLength(1);
    expect(errors.map((e) => e.stage)).toEqual(['ledger']);
  });

  it('runs a call whose consent could not be recorded under ledgerRequired: false', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('authorization');
    const { dataModify, statements } = createDataModify();
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      confirm: () => true,
      ledger,
      ledgerRequired: false,
    });
    await gate.process([deleteCall()], { turn: 1, context: undefined, ...address });
    await gate.process([deleteCall('call_2')], { turn: 1, context: undefined }); // no session either
    expect(statements).toEqual([DELETE, DELETE]);
  });

  it('rejects a ledger without an append function', () => {
    const { dataModify } = createDataModify();
    expect(() =>
      createToolGate({
        tools: [dataModify],
        allowlist: ['data_modify'],
        confirm: () => true,
        ledger: {} as ConsentLedger,
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
