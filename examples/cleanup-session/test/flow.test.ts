// The flow definition's own decisions, step by step, without the host: what each step accepts,
// refuses, and which failure handling it takes. Plus the README's diagram.
import { readFileSync } from 'node:fs';
import { createManualClock } from '@parley/core';
import { createFlowSession, type FlowSubmitResult, toMermaid } from '@parley/fsm';
import { describe, expect, it } from 'vitest';
import { type CleanupStep, cleanupFlow, MAX_CREDENTIAL_TTL_MS } from '../src/flow.js';

const valid = { status: 'valid', expires_in_ms: 20 * 60_000, scopes: ['report:write'] } as const;
/** One justification per target of the scope below. */
const JUSTIFIED = {
  'https://x.com/a/status/1': { evidence_refs: ['ev1'], statement: 'this post copies my photo unlicensed' },
  'x:2': { evidence_refs: ['ev2'], statement: 'this one copies my other photo too' },
};
const ANSWERS: Readonly<Record<string, readonly object[]>> = {
  goal: [{ goal_type: 'dmca_takedown', intent_summary: 'remove the reposts of my photos on X' }],
  'platform-scope': [{ platforms: ['x'], targets: ['https://x.com/a/status/1', 'x:2'] }],
  auth: [{ auth_mode: 'oauth', credential_ref: 'vault://t/1', consent_ack: true, check: valid }],
  evidence: [
    {
      evidence_refs: ['ev1', 'ev2'],
      justifications: JUSTIFIED,
      user_statement_authenticity_ack: true,
    },
  ],
  'risk-confirm': [{ confirm1: 'YES' }, { confirm2: 'YES' }, { confirm3: 'YES' }],
  'export-decision': [{ export_before_delete: 'no' }],
  execute: [
    { manual_trigger: true, execution_plan_ref: 'plan_1' },
    { adapter_status: 'success', attempt: 1, completed: ['https://x.com/a/status/1', 'x:2'], errors: [] },
  ],
  notify: [{ notify_mode: 'email' }],
};

/** A session at `step` (its first answer), with the answers of the steps before given as above. */
function at(step: CleanupStep, overrides: Readonly<Record<string, readonly object[]>> = {}) {
  const session = createFlowSession(cleanupFlow, { clock: createManualClock() });
  for (const [name, answers] of Object.entries({ ...ANSWERS, ...overrides })) {
    if (name === step) break;
    for (const answer of answers) {
      const result = session.submit(answer);
      if (!result.ok) throw new Error(`${name}: ${result.code}`);
    }
  }
  return session;
}

const failure = (result: FlowSubmitResult<CleanupStep, unknown>) => {
  if (result.ok || result.code === 'flow_done')
    throw new Error(`expected a failure, got ${result.ok ? 'ok' : result.code}`);
  return result;
};

describe('goal', () => {
  it.each(['delete stuff', 'clean up my things', 'remove it'])('retries a vague goal: %s', (summary) => {
    const result = failure(at('goal').submit({ goal_type: 'delete', intent_summary: summary }));
    expect(result).toMatchObject({
      code: 'exit_failed',
      action: 'retry',
      reason: 'The goal is too vague to act on',
    });
    expect(result.message).toContain('For example');
  });

  it('accepts a goal in Chinese that says what and where', () => {
    expect(at('goal').submit({ goal_type: 'delist', intent_summary: '下架我在闲鱼上的旧照片' }).ok).toBe(
      true,
    );
  });

  it('names the goal type as missing when the user did not say it', () => {
    expect(
      failure(at('goal').submit({ intent_summary: 'remove the reposts of my photos on X' })).missingFields,
    ).toEqual(['goal_type']);
  });
});

describe('platform-scope', () => {
  it('records normalised, de-duplicated targets and leaves the rest unresolved', () => {
    const session = at('platform-scope');
    const targets = [
      'http://www.twitter.com/A/status/1#x',
      'https://x.com/a/status/1/?utm_source=t',
      'x:2',
      'blog',
    ];
    expect(session.submit({ platforms: ['Twitter'], targets }).ok).toBe(true);
    expect(session.fields['platform-scope']).toEqual({
      platforms: ['x'],
      targets: ['https://x.com/a/status/1', 'x:2'],
      unresolved: [{ input: 'blog', reason: 'not a URL or a platform:id' }],
    });
  });

  it('hands a list with no resolvable target to the manual-review queue and stays', () => {
    const session = at('platform-scope');
    const result = failure(
      session.submit({ platforms: ['x'], targets: ['my old blog', 'https://reddit.com/r/a'] }),
    );
    expect(result).toMatchObject({
      code: 'exit_failed',
      action: 'manual_review',
      queue: 'unresolved-targets',
    });
    expect(session.step).toBe('platform-scope');
    expect(session.snapshot().reviews).toEqual([
      expect.objectContaining({
        queue: 'unresolved-targets',
        submitted: { platforms: ['x'], targets: ['my old blog', 'https://reddit.com/r/a'] },
      }),
    ]);
  });
});

describe('auth', () => {
  const submit = (answer: object, scope = ANSWERS['platform-scope'] ?? []) =>
    at('auth', { 'platform-scope': scope }).submit({ consent_ack: true, ...answer });
  const oauth = (check: object) => ({
    auth_mode: 'oauth',
    credential_ref: 'vault://t/1',
    check: { ...valid, ...check },
  });

  it.each([
    ['expired', oauth({ status: 'expired' }), 'The credential is expired'],
    ['invalid', oauth({ status: 'invalid' }), 'The credential is invalid'],
    ['unknown to the vault', oauth({ status: 'unknown', expires_in_ms: null }), 'The credential is unknown'],
    ['long-lived', oauth({ expires_in_ms: MAX_CREDENTIAL_TTL_MS + 1 }), 'not short-lived'],
    [
      'broader than needed',
      oauth({ scopes: ['report:write', 'account:admin'] }),
      'more than the minimum scope (account:admin)',
    ],
    ['missing the needed scope', oauth({ scopes: ['content:delete'] }), 'lacks the scope report:write'],
    ['"none" on a platform that needs a login', { auth_mode: 'none' }, 'x requires authorization'],
  ])('asks to re-authorize when the credential is %s', (_what, answer, reason) => {
    const result = failure(submit(answer));
    expect(result).toMatchObject({ code: 'exit_failed', action: 'retry' });
    expect(result.reason).toContain(reason);
    expect(result.message).toContain('re-authorize');
  });

  it('accepts a valid short-lived credential, a session proof, or none where no login is needed', () => {
    expect(submit(oauth({})).ok).toBe(true);
    expect(submit({ auth_mode: 'session', session_proof: 'proof:abc', check: valid }).ok).toBe(true);
    expect(
      submit({ auth_mode: 'none' }, [{ platforms: ['web'], targets: ['https://example.org/p'] }]).ok,
    ).toBe(true);
  });

  it('refuses an answer without consent', () => {
    const session = at('auth');
    expect(
      failure(session.submit({ auth_mode: 'oauth', credential_ref: 'vault://t/1', check: valid }))
        .missingFields,
    ).toEqual(['consent_ack']);
  });
});

describe('evidence', () => {
  const FIRST = { 'https://x.com/a/status/1': JUSTIFIED['https://x.com/a/status/1'] };

  it('asks for more and records nothing when the package is incomplete', () => {
    const session = at('evidence');
    const result = failure(session.submit({ justifications: {} }));
    expect(result.missingFields).toEqual(['evidence_refs', 'user_statement_authenticity_ack']);
    expect(result.message).toContain('Nothing is filled in for you');
    expect(session.fields.evidence).toBeUndefined();
  });

  it('names a target without its own justification in missing_fields', () => {
    const session = at('evidence');
    const result = failure(
      session.submit({
        evidence_refs: ['ev1'],
        justifications: FIRST,
        user_statement_authenticity_ack: true,
      }),
    );
    expect(result).toMatchObject({
      code: 'exit_failed',
      action: 'retry',
      missingFields: ['justifications["x:2"]'],
      reason: '1 target(s) lack their own justification',
    });
    expect(session.fields.evidence).toBeUndefined();
  });

  it('does not let one statement for the whole package stand in for every target', () => {
    const result = failure(
      at('evidence').submit({
        evidence_refs: ['ev1', 'ev2'],
        statement: 'these posts copy my photos without a license',
        justifications: {},
        user_statement_authenticity_ack: true,
      }),
    );
    expect(result.missingFields).toEqual([
      'justifications["https://x.com/a/status/1"]',
      'justifications["x:2"]',
    ]);
  });

  it('names a justification that has no evidence of its own by its missing field', () => {
    const result = failure(
      at('evidence').submit({
        evidence_refs: ['ev1'],
        justifications: { ...FIRST, 'x:2': { statement: 'this one copies my other photo too' } },
        user_statement_authenticity_ack: true,
      }),
    );
    expect(result).toMatchObject({
      code: 'invalid_fields',
      missingFields: ['justifications["x:2"].evidence_refs'],
    });
  });

  it('refuses a statement that does not explain why its target is in scope', () => {
    const result = failure(
      at('evidence').submit({
        evidence_refs: ['ev1', 'ev2'],
        justifications: { ...FIRST, 'x:2': { evidence_refs: ['ev2'], statement: 'mine' } },
        user_statement_authenticity_ack: true,
      }),
    );
    expect(result).toMatchObject({ code: 'exit_failed', missingFields: ['justifications["x:2"].statement'] });
  });

  it('refuses a justification whose evidence is not in the package', () => {
    const result = failure(
      at('evidence').submit({
        evidence_refs: ['ev1'],
        justifications: JUSTIFIED,
        user_statement_authenticity_ack: true,
      }),
    );
    expect(result).toMatchObject({
      code: 'exit_failed',
      missingFields: [],
      reason: 'Evidence ev2 is not in the evidence package',
    });
  });

  it('goes on when every target has its own evidence and statement', () => {
    const session = at('evidence');
    expect(session.submit(ANSWERS.evidence?.[0] ?? {}).ok).toBe(true);
    expect(session.fields.evidence?.justifications).toEqual(JUSTIFIED);
  });
});

describe('risk-confirm', () => {
  it.each(['YES', ' YES ', 'ＹＥＳ', 'YES\u200b'])('takes %j as an exact YES', (reply) => {
    const session = at('risk-confirm');
    for (const field of ['confirm1', 'confirm2', 'confirm3'])
      expect(session.submit({ [field]: reply }).ok).toBe(true);
    expect(session.fields['risk-confirm']).toEqual({ confirm1: 'YES', confirm2: 'YES', confirm3: 'YES' });
    expect(session.step).toBe('export-decision');
  });

  it.each(['yes', 'Yes', 'YES.', 'Y', '确认', 'ok', 'YES please'])(
    'blocks execution and goes back to review on %j',
    (reply) => {
      const session = at('risk-confirm');
      session.submit({ confirm1: 'YES' });
      const result = failure(session.submit({ confirm2: reply }));
      expect(result).toMatchObject({ action: 'back', to: 'evidence' });
      expect(session.step).toBe('evidence');
      expect(session.fields['risk-confirm']).toBeUndefined();
      expect(session.fields.evidence).toBeUndefined();
    },
  );
});

describe('export-decision', () => {
  it('blocks hard when "ask" comes without an answer, until one is given', () => {
    const session = at('export-decision');
    expect(failure(session.submit({ export_before_delete: 'ask' }))).toMatchObject({
      action: 'block',
      missingFields: ['export_answer'],
    });
    expect(session.status).toBe('blocked');
    expect(session.submit({ export_before_delete: 'ask', export_answer: 'no' }).ok).toBe(true);
    expect(session.status).toBe('active');
  });
});

describe('execute', () => {
  const result = (status: string, attempt: number) => ({
    adapter_status: status,
    attempt,
    completed: [],
    errors: [],
  });

  it('does not move without the manual trigger', () => {
    const session = at('execute');
    const refused = failure(session.submit({ manual_trigger: false, execution_plan_ref: 'plan_1' }));
    expect(refused.message).toContain('Nothing was executed');
    expect(session.snapshot().part).toBe(0);
  });

  it('offers retry or manual on partial and failed results, then the manual queue after three', () => {
    const session = at('execute');
    session.submit(ANSWERS.execute?.[0]);
    expect(failure(session.submit(result('partial', 1)))).toMatchObject({
      action: 'retry',
      reason: 'The adapter returned partial',
    });
    expect(failure(session.submit(result('failed', 2)))).toMatchObject({ action: 'retry' });
    expect(failure(session.submit(result('failed', 3)))).toMatchObject({
      action: 'manual_review',
      queue: 'manual-execution',
    });
    expect(session.submit({ ...result('failed', 3), fallback: 'manual' }).ok).toBe(true);
    expect(session.step).toBe('notify');
  });
});

describe('notify and close', () => {
  it('defaults an unsupported mode to none with an explicit notice', () => {
    const session = at('notify');
    const result = session.submit({ notify_mode: 'fax' });
    expect(result).toMatchObject({ ok: true, notice: expect.stringContaining('defaulting to none') });
    expect(session.fields.notify).toEqual({ notify_mode: 'none' });
  });

  it('marks the session close_pending while the audit is unsaved, and clears it once saved', () => {
    const session = at('close');
    session.submit({ close_ack: true, audit_export: false });
    failure(session.submit({ audit_saved: false }));
    expect(session.snapshot().mark).toBe('close_pending');
    expect(session.submit({ audit_saved: true, audit_ref: 'cleanup:audit:s' }).ok).toBe(true);
    expect(session.snapshot().mark).toBeNull();
    expect(session.done).toBe(true);
  });
});

describe('README', () => {
  it('shows the diagram toMermaid draws of the flow', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(toMermaid(cleanupFlow));
  });
});
