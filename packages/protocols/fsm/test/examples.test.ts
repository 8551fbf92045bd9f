// The @example of every exported function and constant, with assertions. (Type-only examples are
// compiled and run by the repository's tests/doc-examples.test.ts.)
import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createActor,
  createFlowSession,
  describeFlowResult,
  toFlowAudit,
  DEFAULT_HISTORY_LIMIT,
  defineFlow,
  defineMachine,
  defineRequestMachine,
  FSM_ERROR_CODES,
  FsmError,
  FSM_REFUSAL_CODES,
  requestMachine,
  toMermaid,
} from '../src/index.js';
import type { ExitVerdict } from '../src/index.js';

describe('TSDoc examples', () => {
  it('defineMachine', () => {
    const door = defineMachine({
      id: 'door',
      version: 1,
      initial: 'closed',
      context: { opened: 0 },
      guards: { unlocked: (context: { opened: number }) => context.opened < 3 },
      states: {
        closed: {
          on: { open: { target: 'open', guard: 'unlocked', assign: (c) => ({ opened: c.opened + 1 }) } },
        },
        open: { on: { close: 'closed', break: 'broken' } },
        broken: { final: true },
      },
    });
    const actor = createActor(door);
    actor.send('open');
    expect([actor.state, actor.context.opened]).toEqual(['open', 1]);
  });

  it('createActor', () => {
    const clock = createManualClock();
    const actor = createActor(requestMachine, { clock });
    const settled: string[] = [];
    actor.on('done', ({ state }) => settled.push(state));
    expect(actor.send('approve')).toEqual({ ok: true, from: 'pending', to: 'approved', event: 'approve' });
    expect(actor.send('reject').ok).toBe(false);
    const resumed = createActor(requestMachine, {
      clock,
      snapshot: JSON.parse(JSON.stringify(actor.snapshot())),
    });
    expect(resumed.state).toBe('approved');
    expect(settled).toEqual(['approved']);
  });

  it('defineFlow', () => {
    const intake = defineFlow({
      id: 'intake',
      version: 1,
      steps: [
        { name: 'goal', prompt: 'What do you want?', fields: z.object({ goal: z.string().min(3) }) },
        {
          name: 'confirm',
          prompt: 'Confirm twice',
          parts: [
            { prompt: 'Type YES', fields: z.object({ confirm1: z.literal('YES') }) },
            { prompt: 'Type YES again', fields: z.object({ confirm2: z.literal('YES') }) },
          ],
          onFailure: { action: 'back', to: 'goal', message: 'Not confirmed; start again' },
        },
      ],
    });
    const session = createFlowSession(intake);
    expect([session.submit({}).ok, session.step]).toEqual([false, 'goal']);
    session.submit({ goal: 'remove reposts' });
    session.submit({ confirm1: 'YES' });
    expect([session.submit({ confirm2: 'YES' }).ok, session.done]).toEqual([true, true]);
  });

  it('createFlowSession', () => {
    const flow = defineFlow({
      id: 'notify',
      version: 1,
      steps: [
        {
          name: 'notify',
          prompt: 'How should I notify results? (none/telegram)',
          fields: z.object({ notify_mode: z.enum(['none', 'telegram']) }),
          onFailure: {
            action: 'default',
            value: { notify_mode: 'none' },
            message: 'Unsupported mode: no notification',
          },
        },
      ],
    });
    const session = createFlowSession(flow, { clock: createManualClock() });
    const result = session.submit({ notify_mode: 'fax' });
    expect(result.ok && result.notice).toBe('Unsupported mode: no notification');
    expect(session.fields.notify).toEqual({ notify_mode: 'none' });
  });

  it('toMermaid', () => {
    expect(toMermaid(requestMachine).split('\n')[0]).toBe('stateDiagram-v2');
  });

  it('requestMachine', () => {
    const plan = createActor(requestMachine);
    plan.send({ type: 'reject', reason: 'too risky' });
    expect([plan.state, plan.context.reason]).toEqual(['rejected', 'too risky']);
    expect(plan.send('approve').ok).toBe(false);
  });

  it('defineRequestMachine', () => {
    const clock = createManualClock();
    const shutdown = createActor(defineRequestMachine({ id: 'shutdown', timeoutMs: 30_000 }), { clock });
    clock.advance(30_000);
    expect(shutdown.state).toBe('expired');
  });

  it('FsmError', () => {
    let error: unknown;
    try {
      defineMachine({ id: 'm', version: 1, initial: 'nowhere' as 'a', context: {}, states: { a: {} } });
    } catch (err) {
      error = err;
    }
    expect([error instanceof FsmError, isParleyError(error, 'invalid_definition')]).toEqual([true, true]);
  });

  it('constants', () => {
    expect(FSM_ERROR_CODES.includes('version_mismatch')).toBe(true);
    expect(FSM_REFUSAL_CODES).toContain('guard_failed');
    expect(DEFAULT_HISTORY_LIMIT).toBe(100);
  });

  it('FSM_REFUSAL_CODES (types.ts)', () => {
    const actor = createActor(requestMachine);
    actor.send('approve');
    const result = actor.send('reject'); // the request is already approved
    expect(result.ok === false && FSM_REFUSAL_CODES.includes(result.code)).toBe(true);
  });

  it('describeFlowResult', () => {
    const flow = defineFlow({
      id: 'goal',
      version: 1,
      steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
    });
    const session = createFlowSession(flow);
    expect(describeFlowResult(session.submit({}))).toBe('✗ invalid_fields, retry: missing goal_type');
    expect(describeFlowResult(session.submit({ goal_type: 'delete' }))).toBe('✓ accepted → done');
  });

  it('ExitVerdict', () => {
    const perTarget = (given: Record<string, string>, targets: string[]): ExitVerdict => {
      const missing = targets.filter((target) => given[target] === undefined);
      return missing.length === 0 || { reason: 'A target has no justification', missingFields: missing };
    };
    expect(perTarget({ 'x:1': 'reposts my photo' }, ['x:1', 'x:2'])).toEqual({
      reason: 'A target has no justification',
      missingFields: ['x:2'],
    });
  });

  it('toFlowAudit', () => {
    const flow = defineFlow({
      id: 'goal',
      version: 1,
      steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
    });
    const session = createFlowSession(flow, { clock: createManualClock({ now: Date.UTC(2026, 3, 15, 9) }) });
    session.submit({});
    session.submit({ goal_type: 'delete' });
    const audit = toFlowAudit(session.snapshot());
    expect(audit.transitions).toEqual([
      { at: '2026-04-15T09:00:00.000Z', from: 'goal', to: 'done', event: 'submit' },
    ]);
    expect(audit.failures).toEqual({ goal: 1 });
  });
});
