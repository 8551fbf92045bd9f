import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type ConfirmRequest, confirmRules, confirmStep, createConfirmation } from '../src/index.js';

// The confirm step as a public API, for hosts that run it outside a gate (issue 33): what
// createConfirmation and confirmRules refuse, and that the step decides as the gate does.

const REQUEST: ConfirmRequest = {
  sessionKey: 'telegram:42',
  action: { name: 'sql.drop', args: { table: 'customers' } },
  summary: 'DROP TABLE customers',
  requester: 'alice',
};

function code(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isParleyError(error) ? error.code : 'not_a_parley_error';
  }
  return undefined;
}

describe('createConfirmation', () => {
  it.each([
    ['an empty id', { id: '', now: 0 }],
    ['an id with a dot', { id: 'a.b', now: 0 }],
    ['an id of 129 characters', { id: 'x'.repeat(129), now: 0 }],
  ])('refuses %s as invalid_argument', (_, how) => {
    expect(code(() => createConfirmation(REQUEST, how))).toBe('invalid_argument');
  });

  it('refuses a request without a summary, with a bad session key or bad steps', () => {
    expect(code(() => createConfirmation({ ...REQUEST, summary: ' ' }, { id: 'c', now: 0 }))).toBe(
      'invalid_argument',
    );
    expect(code(() => createConfirmation({ ...REQUEST, sessionKey: 'nope' }, { id: 'c', now: 0 }))).toBe(
      'invalid_argument',
    );
    expect(
      code(() =>
        createConfirmation({ ...REQUEST, steps: [{ prompt: 'p', expect: ' ' }] }, { id: 'c', now: 0 }),
      ),
    ).toBe('invalid_argument');
  });

  it('refuses a bad timeout and a bad approver list', () => {
    expect(code(() => createConfirmation({ ...REQUEST, timeoutMs: -1 }, { id: 'c', now: 0 }))).toBe(
      'invalid_timeout',
    );
    expect(code(() => createConfirmation({ ...REQUEST, approvers: [] }, { id: 'c', now: 0 }))).toBe(
      'invalid_argument',
    );
  });

  it('pins the action by its digest on a private copy, and keeps a long summary visibly cut', () => {
    const args = { table: 'customers' };
    const c = createConfirmation(
      { ...REQUEST, action: { name: 'sql.drop', args }, summary: 'x'.repeat(9_000) },
      {
        id: 'c',
        now: 5,
        owner: 'replica-a',
      },
    );
    args.table = 'orders';
    expect(c.record.action.args).toEqual({ table: 'customers' });
    expect(c.record.summary).toMatch(/… \(1000 more characters not kept\)$/);
    expect(c.record).toMatchObject({ requestedAt: 5, owner: 'replica-a', approvers: 'requester' });
  });
});

describe('confirmRules', () => {
  it('refuses bad settings as the gate does', () => {
    expect(code(() => confirmRules({ maxPending: 0 }))).toBe('invalid_argument');
    expect(code(() => confirmRules({ whenPending: 'later' as 'queue' }))).toBe('invalid_argument');
    expect(code(() => confirmRules({ afterDecisionMs: -5 }))).toBe('invalid_timeout');
    expect(code(() => confirmRules({ standingAllowanceMs: 0 }))).toBe('invalid_timeout');
  });
});

describe('confirmStep outside a gate', () => {
  it('never lets an answer that reached the host before the send began confirm, and lets a later one', () => {
    const rules = confirmRules();
    let c = createConfirmation(REQUEST, { id: 'c1', now: 0 });
    c = confirmStep(c, { type: 'prompt' }, 0, rules).next;
    const reply = { type: 'reply', text: '确认', senderId: 'alice', order: undefined, bot: false } as const;
    // The answer reached the host (arrival 1) before the send began (2), then the prompt was delivered.
    c = confirmStep(c, { type: 'send_begun', sends: 1, seq: 2 }, 1, rules).next;
    c = confirmStep(
      c,
      { type: 'delivered', sends: 1, seq: 3, kind: 'first', order: undefined },
      2,
      rules,
    ).next;
    const early = confirmStep(c, { ...reply, arrival: 1, lateChecked: true }, 3, rules);
    expect(early.next.state).toBe('prompted');
    const later = confirmStep(early.next, { ...reply, arrival: 4 }, 4, rules);
    expect(later.effects[0]).toMatchObject({
      type: 'decided',
      decision: { outcome: 'confirmed', decidedBy: 'alice' },
    });
  });
});
