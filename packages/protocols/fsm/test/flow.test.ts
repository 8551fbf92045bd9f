import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createFlowSession, defineFlow, type FlowSubmitResult } from '../src/index.js';
import { cleanupFlow, seedAnswers } from './cleanup-flow.js';

const clockAt = (now = 0) => createManualClock({ now });

/** Drives a session through the seed's answers up to (not including) the step named. */
function driveTo(stop: string, session = createFlowSession(cleanupFlow, { clock: clockAt(1_000) })) {
  for (const [step, answer] of Object.entries(seedAnswers)) {
    if (step === stop) break;
    for (const part of Array.isArray(answer) ? answer : [answer]) {
      const result = session.submit(part);
      if (!result.ok) throw new Error(`${step} failed: ${result.code}`);
    }
  }
  return session;
}

const fail = (result: FlowSubmitResult) => {
  if (result.ok || result.code === 'flow_done') throw new Error('expected a step failure');
  return result;
};

describe('the cleanup flow (seed)', () => {
  it('asks the goal first', () => {
    const session = createFlowSession(cleanupFlow, { clock: clockAt() });
    expect(session.step).toBe('goal');
    expect(session.prompt).toBe('What outcome do you want to achieve in this cleanup session?');
  });

  it('runs all nine steps in order to done', () => {
    const session = driveTo('execute');
    const steps = [session.step];
    session.submit({ manual_trigger: true, execution_plan_ref: 'plan-1' });
    session.submit({ adapter_status: 'partial' });
    steps.push(session.step);
    session.submit({ notify_mode: 'telegram' });
    steps.push(session.step);
    session.submit({ close_ack: true });
    const last = session.submit({ audit_saved: true });
    expect(steps).toEqual(['execute', 'notify', 'close']);
    expect(last).toMatchObject({ ok: true, step: 'close', next: 'done', done: true });
    expect(session.status).toBe('done');
    expect(session.prompt).toBeUndefined();
    expect(session.snapshot().history.map((h) => h.to)).toEqual([
      'platform-scope',
      'auth',
      'evidence',
      'risk-confirm',
      'export-decision',
      'execute',
      'notify',
      'close',
      'done',
    ]);
  });

  it('keeps the flow on goal with missingFields when required fields are absent', () => {
    const session = createFlowSession(cleanupFlow, { clock: clockAt() });
    const result = fail(session.submit({ goal_type: 'delete' }));
    expect(result).toMatchObject({
      code: 'invalid_fields',
      step: 'goal',
      action: 'retry',
      missingFields: ['intent_summary'],
    });
    expect(result.prompt).toBe(cleanupFlow.steps[0]?.prompt);
    expect(session.step).toBe('goal');
    expect(session.fields).toEqual({});
  });

  it('asks narrowing questions when the goal is vague (exit condition)', () => {
    const session = createFlowSession(cleanupFlow, { clock: clockAt() });
    const result = fail(session.submit({ goal_type: 'delete', intent_summary: 'stuff' }));
    expect(result).toMatchObject({
      code: 'exit_failed',
      detail: 'The goal is too vague',
      reason: 'The goal is too vague',
      action: 'retry',
      attempts: 1,
    });
    expect(result.message).toContain('narrow it down');
    expect(fail(session.submit({ goal_type: 'delete', intent_summary: 'x' })).attempts).toBe(2);
  });

  it('hands unresolved targets to the manual review queue', () => {
    const session = driveTo('platform-scope');
    const result = fail(session.submit({ platforms: ['x'], targets: ['that account'] }));
    expect(result).toMatchObject({
      action: 'manual_review',
      queue: 'unresolved-targets',
      code: 'exit_failed',
    });
    expect(session.step).toBe('platform-scope');
    expect(session.snapshot().reviews).toEqual([
      expect.objectContaining({
        step: 'platform-scope',
        queue: 'unresolved-targets',
        submitted: { platforms: ['x'], targets: ['that account'] },
      }),
    ]);
  });

  it('requests re-authorization when credentials are missing, without falling back', () => {
    const session = driveTo('auth');
    const result = fail(session.submit({ auth_mode: 'oauth', consent_ack: true }));
    expect(result).toMatchObject({ action: 'retry', missingFields: ['credential_ref'] });
    expect(session.step).toBe('auth');
  });

  it('accepts auth_mode none when the channel needs no auth', () => {
    const session = driveTo('auth');
    expect(session.submit({ auth_mode: 'none', consent_ack: true })).toMatchObject({
      ok: true,
      next: 'evidence',
    });
  });

  it('asks for more evidence instead of inventing it', () => {
    const session = driveTo('evidence');
    expect(
      fail(session.submit({ evidence_refs: [], user_statement_authenticity_ack: true })).message,
    ).toContain('Evidence is missing');
  });

  it('asks three confirmations in sequence, one prompt each', () => {
    const session = driveTo('risk-confirm');
    expect(session.prompt).toBe('This may be high-impact. Confirm #1 (YES).');
    expect(session.submit({ confirm1: 'YES' })).toMatchObject({
      ok: true,
      next: 'risk-confirm',
      prompt: 'Please reconfirm #2 (YES).',
    });
    expect(session.submit({ confirm2: 'YES' })).toMatchObject({
      ok: true,
      next: 'risk-confirm',
      prompt: 'Final confirmation #3 (YES).',
    });
    expect(session.submit({ confirm3: 'YES' })).toMatchObject({ ok: true, next: 'export-decision' });
    expect(session.fields['risk-confirm']).toEqual({ confirm1: 'YES', confirm2: 'YES', confirm3: 'YES' });
  });

  it('goes back to evidence on any confirmation mismatch and drops what was confirmed', () => {
    const session = driveTo('risk-confirm');
    session.submit({ confirm1: 'YES' });
    const result = fail(session.submit({ confirm2: 'yes' }));
    expect(result).toMatchObject({ action: 'back', to: 'evidence', step: 'risk-confirm' });
    expect(session.step).toBe('evidence');
    expect(session.fields['risk-confirm']).toBeUndefined();
    expect(session.fields.evidence).toBeUndefined();
    expect(session.fields.auth).toBeDefined();
  });

  it('hard-blocks export-decision until export_answer is given when the choice is ask', () => {
    const session = driveTo('export-decision');
    const result = fail(session.submit({ export_before_delete: 'ask' }));
    expect(result).toMatchObject({ action: 'block', missingFields: ['export_answer'] });
    expect(session.status).toBe('blocked');
    expect(session.step).toBe('export-decision');
    expect(session.submit({ export_before_delete: 'ask', export_answer: 'no' })).toMatchObject({
      ok: true,
      next: 'execute',
    });
    expect(session.status).toBe('active');
  });

  it('does not require export_answer when the choice is yes or no', () => {
    const session = driveTo('export-decision');
    expect(session.submit({ export_before_delete: 'no' }).ok).toBe(true);
  });

  it('needs the manual trigger before the adapter result is taken', () => {
    const session = driveTo('execute');
    expect(fail(session.submit({ manual_trigger: false, execution_plan_ref: 'p' })).action).toBe('retry');
    expect(session.submit({ manual_trigger: true, execution_plan_ref: 'p' })).toMatchObject({
      ok: true,
      next: 'execute',
    });
  });

  it('offers a retry on a failed execution, then the manual fallback', () => {
    const session = driveTo('execute');
    session.submit({ manual_trigger: true, execution_plan_ref: 'p' });
    const failed = { adapter_status: 'failed', error: { code: 'rate_limited', message: '429' } };
    expect(fail(session.submit(failed))).toMatchObject({ action: 'retry', attempts: 1, code: 'exit_failed' });
    expect(fail(session.submit(failed))).toMatchObject({
      action: 'manual_review',
      queue: 'manual-execution',
      attempts: 2,
    });
    expect(session.snapshot().reviews.at(-1)?.submitted).toEqual(failed);
  });

  it('falls back to notify_mode none with an explicit notice for an unsupported mode', () => {
    const session = driveTo('execute');
    session.submit({ manual_trigger: true, execution_plan_ref: 'p' });
    session.submit({ adapter_status: 'success' });
    const result = session.submit({ notify_mode: 'fax' });
    expect(result).toMatchObject({
      ok: true,
      next: 'close',
      notice: expect.stringContaining('not supported'),
    });
    expect(session.fields.notify).toEqual({ notify_mode: 'none' });
    expect(session.snapshot().notices).toEqual([expect.objectContaining({ step: 'notify' })]);
  });

  it('marks the flow close_pending while saving the audit fails, and clears it once saved', () => {
    const session = driveTo('execute');
    session.submit({ manual_trigger: true, execution_plan_ref: 'p' });
    session.submit({ adapter_status: 'success' });
    session.submit({ notify_mode: 'none' });
    session.submit({ close_ack: true, followup_preference: 'weekly' });
    expect(fail(session.submit({ audit_saved: false }))).toMatchObject({ action: 'retry' });
    expect(session.snapshot().mark).toBe('close_pending');
    expect(session.submit({ audit_saved: true })).toMatchObject({ ok: true, done: true });
    expect(session.snapshot().mark).toBeNull();
  });

  it('refuses a submission after done with flow_done', () => {
    const session = createFlowSession(
      defineFlow({
        id: 'one',
        version: 1,
        steps: [{ name: 'only', prompt: 'x?', fields: z.object({ x: z.number() }) }],
      }),
      { clock: clockAt() },
    );
    session.submit({ x: 1 });
    const refused = vi.fn();
    session.on('refused', refused);
    const message = 'Flow "one" is done; nothing more is asked';
    expect(session.submit({ x: 2 })).toMatchObject({ ok: false, code: 'flow_done', step: 'done', message });
    expect(refused).toHaveBeenCalledWith({ code: 'flow_done', message, reason: message, at: 0 });
    expect(session.fields).toEqual({ only: { x: 1 } });
  });

  it('projects a flow snapshot to the seed session JSON', () => {
    const session = driveTo('execute');
    const snapshot = JSON.parse(JSON.stringify(session.snapshot()));
    const view = (step: string, keys: string[]) =>
      Object.fromEntries(keys.map((k) => [k, snapshot.fields[step]?.[k]]).filter(([, v]) => v !== undefined));
    const projection = {
      session_id: 'sess_abc123',
      state: snapshot.state,
      goal: view('goal', ['goal_type', 'intent_summary']),
      scope: view('platform-scope', ['platforms', 'targets']),
      auth: view('auth', ['auth_mode', 'credential_ref']),
      evidence: view('evidence', ['evidence_refs', 'user_statement_authenticity_ack']),
      risk_confirm: view('risk-confirm', ['confirm1', 'confirm2', 'confirm3']),
      export: view('export-decision', ['export_before_delete', 'export_answer']),
    };
    const seed = {
      session_id: 'sess_abc123',
      state: 'execute',
      goal: { goal_type: 'dmca_takedown', intent_summary: 'Remove infringing reposts' },
      scope: { platforms: ['x'], targets: ['https://x.com/.../'] },
      auth: { auth_mode: 'oauth', credential_ref: 'vault://...' },
      evidence: { evidence_refs: ['ev1'], user_statement_authenticity_ack: true },
      risk_confirm: { confirm1: 'YES', confirm2: 'YES', confirm3: 'YES' },
      export: { export_before_delete: 'ask', export_answer: 'yes' },
      notify: { notify_mode: 'telegram' },
    };
    const { notify, ...upToExecute } = seed;
    expect(projection).toEqual(upToExecute);
    // The seed also shows a notify choice, a step after execute: a snapshot at execute may not hold
    // it (that would be an answer given ahead of its step), and the answer is taken once there.
    expect(() => cleanupFlow.restore({ ...snapshot, fields: { ...snapshot.fields, notify } })).toThrow(
      expect.objectContaining({
        code: 'invalid_snapshot',
        details: expect.objectContaining({ step: 'notify' }),
      }),
    );
    session.submit({ manual_trigger: true, execution_plan_ref: 'plan-1' });
    session.submit({ adapter_status: 'success' });
    session.submit(notify);
    expect(cleanupFlow.restore(JSON.parse(JSON.stringify(session.snapshot()))).fields.notify).toEqual(notify);
  });
});

describe('defineFlow', () => {
  const skipFlow = defineFlow({
    id: 'skip',
    version: 1,
    steps: [
      { name: 'kind', prompt: 'Kind?', fields: z.object({ kind: z.enum(['simple', 'full']) }) },
      {
        name: 'details',
        prompt: 'Details?',
        fields: z.object({ details: z.string() }),
        skip: (collected) => collected.kind?.kind === 'simple',
        skipLabel: 'kind is simple',
      },
      { name: 'end', prompt: 'Done?', fields: z.object({ ok: z.boolean() }) },
    ],
  });

  it('skips a step whose condition holds and reports it', () => {
    const session = createFlowSession(skipFlow, { clock: clockAt() });
    expect(session.submit({ kind: 'simple' })).toMatchObject({ ok: true, next: 'end', skipped: ['details'] });
  });

  it('does not skip when the condition does not hold', () => {
    const session = createFlowSession(skipFlow, { clock: clockAt() });
    expect(session.submit({ kind: 'full' })).toMatchObject({ ok: true, next: 'details', skipped: [] });
  });

  it('starts done when every step is skipped', () => {
    const flow = defineFlow({
      id: 'empty',
      version: 1,
      steps: [{ name: 'never', prompt: '?', fields: z.object({}), skip: () => true }],
    });
    expect(flow.start()).toMatchObject({ state: 'done', status: 'done', done: true });
  });

  it('validates merged parts against the step schema', () => {
    const flow = defineFlow({
      id: 'parts',
      version: 1,
      steps: [
        {
          name: 'pair',
          prompt: 'Two numbers',
          parts: [
            { prompt: 'a?', fields: z.object({ a: z.number() }) },
            { prompt: 'b?', fields: z.object({ b: z.number() }) },
          ],
          fields: z
            .object({ a: z.number(), b: z.number() })
            .refine((v) => v.b > v.a, { message: 'b must exceed a', path: ['b'] }),
        },
      ],
    });
    const session = createFlowSession(flow, { clock: clockAt() });
    session.submit({ a: 5 });
    expect(fail(session.submit({ b: 1 }))).toMatchObject({
      code: 'invalid_fields',
      action: 'retry',
      detail: 'b: b must exceed a',
      reason: 'b: b must exceed a',
    });
    expect(session.prompt).toBe('b?');
    expect(session.submit({ b: 9 })).toMatchObject({ ok: true, done: true });
  });

  it('emits transition, failed and done', () => {
    const session = createFlowSession(skipFlow, { clock: clockAt(3) });
    const events: string[] = [];
    session.on('transition', (t) => events.push(`${t.from}->${t.to}`));
    session.on('failed', (f) => events.push(`failed ${f.step} ${f.action}`));
    session.on('done', () => events.push('done'));
    session.submit({ kind: 'nope' });
    session.submit({ kind: 'simple' });
    session.submit({ ok: true });
    expect(events).toEqual(['failed kind retry', 'kind->end', 'end->done', 'done']);
  });

  it.each([
    ['no steps', { id: 'f', version: 1, steps: [] }],
    [
      'a step named done',
      { id: 'f', version: 1, steps: [{ name: 'done', prompt: '?', fields: z.object({}) }] },
    ],
    [
      'a duplicate step name',
      {
        id: 'f',
        version: 1,
        steps: [
          { name: 'a', prompt: '?', fields: z.object({}) },
          { name: 'a', prompt: '?', fields: z.object({}) },
        ],
      },
    ],
    ['a step with neither schema nor parts', { id: 'f', version: 1, steps: [{ name: 'a', prompt: '?' }] }],
    [
      'a back policy to an unknown step',
      {
        id: 'f',
        version: 1,
        steps: [
          {
            name: 'a',
            prompt: '?',
            fields: z.object({}),
            onFailure: { action: 'back', to: 'zz', message: '' },
          },
        ],
      },
    ],
    [
      'a back policy to the step itself',
      {
        id: 'f',
        version: 1,
        steps: [
          { name: 'a', prompt: '?', fields: z.object({}) },
          {
            name: 'b',
            prompt: '?',
            fields: z.object({}),
            onFailure: { action: 'back', to: 'b', message: '' },
          },
        ],
      },
    ],
    [
      'a back policy to a later step',
      {
        id: 'f',
        version: 1,
        steps: [
          {
            name: 'a',
            prompt: '?',
            fields: z.object({}),
            onFailure: { action: 'back', to: 'b', message: '' },
          },
          { name: 'b', prompt: '?', fields: z.object({}) },
        ],
      },
    ],
    [
      'a default value failing a part schema',
      {
        id: 'f',
        version: 1,
        steps: [
          {
            name: 'a',
            prompt: '?',
            parts: [{ prompt: 'n?', fields: z.object({ n: z.number() }) }],
            onFailure: { action: 'default', value: { n: 'x' }, message: '' },
          },
        ],
      },
    ],
    [
      'a default value failing the schema',
      {
        id: 'f',
        version: 1,
        steps: [
          {
            name: 'a',
            prompt: '?',
            fields: z.object({ n: z.number() }),
            onFailure: { action: 'default', value: { n: 'x' }, message: '' },
          },
        ],
      },
    ],
    [
      'an invalid version',
      { id: 'f', version: -1, steps: [{ name: 'a', prompt: '?', fields: z.object({}) }] },
    ],
  ])('refuses %s with invalid_definition', (_name, config) => {
    let error: unknown;
    try {
      defineFlow(config as never);
    } catch (err) {
      error = err;
    }
    expect(isParleyError(error, 'invalid_definition')).toBe(true);
  });
});

describe('failure policy functions', () => {
  it('throw invalid_definition when they go back to a step that is not earlier, and move nothing', () => {
    const flow = defineFlow({
      id: 'jump',
      version: 1,
      steps: [
        {
          name: 'a',
          prompt: '?',
          fields: z.object({ ok: z.literal(true) }),
          onFailure: () => ({ action: 'back' as const, to: 'c' as const, message: 'jump ahead' }),
        },
        { name: 'b', prompt: '?', fields: z.object({}) },
        { name: 'c', prompt: '?', fields: z.object({}) },
      ],
    });
    const session = createFlowSession(flow, { clock: clockAt() });
    let error: unknown;
    try {
      session.submit({ ok: false });
    } catch (err) {
      error = err;
    }
    expect(isParleyError(error, 'invalid_definition')).toBe(true);
    expect(session.step).toBe('a');
    expect(session.snapshot().attempts).toEqual({});
  });
});

describe('flow snapshots', () => {
  it('persist in a Store and resume where they were', async () => {
    const store = createMemoryStore();
    const session = driveTo('risk-confirm');
    session.submit({ confirm1: 'YES' });
    await store.set('cleanup:sess_abc123', session.snapshot());
    const resumed = createFlowSession(cleanupFlow, {
      clock: clockAt(2_000),
      snapshot: await store.get('cleanup:sess_abc123'),
    });
    expect(resumed.step).toBe('risk-confirm');
    expect(resumed.prompt).toBe('Please reconfirm #2 (YES).');
    expect(resumed.snapshot()).toEqual(session.snapshot());
  });

  const base = () => JSON.parse(JSON.stringify(driveTo('auth').snapshot()));
  const codeOf = (value: unknown) => {
    try {
      cleanupFlow.restore(value);
    } catch (error) {
      return isParleyError(error) ? error.code : 'other';
    }
    return undefined;
  };

  it.each([
    [
      'missing flow fields',
      (s: Record<string, unknown>) => ({ ...s, fields: undefined }),
      'invalid_snapshot',
    ],
    ['a negative part', (s: Record<string, unknown>) => ({ ...s, part: -1 }), 'invalid_snapshot'],
    ['an unknown status', (s: Record<string, unknown>) => ({ ...s, status: 'paused' }), 'invalid_snapshot'],
    ['a mark that is not a string', (s: Record<string, unknown>) => ({ ...s, mark: 3 }), 'invalid_snapshot'],
    [
      'a status that does not fit the state',
      (s: Record<string, unknown>) => ({ ...s, status: 'done' }),
      'invalid_snapshot',
    ],
    [
      'a part the step does not have',
      (s: Record<string, unknown>) => ({ ...s, part: 4 }),
      'invalid_snapshot',
    ],
    [
      'fields of an unknown step',
      (s: Record<string, unknown>) => ({ ...s, fields: { nope: {} } }),
      'invalid_fields',
    ],
    [
      'fields that fail their step schema',
      (s: Record<string, unknown>) => ({ ...s, fields: { goal: { goal_type: 'x' } } }),
      'invalid_fields',
    ],
    ['an unknown state', (s: Record<string, unknown>) => ({ ...s, state: 'limbo' }), 'unknown_state'],
    ['another flow', (s: Record<string, unknown>) => ({ ...s, machine: 'other' }), 'wrong_machine'],
    ['another version', (s: Record<string, unknown>) => ({ ...s, version: 9 }), 'version_mismatch'],
  ])('refuses %s', (_name, change, code) => {
    expect(codeOf(change(base()))).toBe(code);
  });

  it('accepts partial answers of the current step', () => {
    const session = driveTo('risk-confirm');
    session.submit({ confirm1: 'YES' });
    expect(cleanupFlow.restore(JSON.parse(JSON.stringify(session.snapshot()))).part).toBe(1);
  });

  it('bounds the history by historyLimit', () => {
    const session = driveTo('execute', createFlowSession(cleanupFlow, { clock: clockAt(), historyLimit: 2 }));
    expect(session.snapshot().history.map((h) => h.to)).toEqual(['export-decision', 'execute']);
  });

  it('is pure: submit returns a new snapshot and leaves the old one', () => {
    const start = cleanupFlow.start({ at: 5 });
    const next = cleanupFlow.submit(start, seedAnswers.goal, { at: 9 });
    expect(next.snapshot.state).toBe('platform-scope');
    expect(next.snapshot.updatedAt).toBe(9);
    expect(start.state).toBe('goal');
    expect(start.fields).toEqual({});
  });
});
