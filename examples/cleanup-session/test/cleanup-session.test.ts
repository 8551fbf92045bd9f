// The four scripted scenarios, end to end on a manual clock: final state, session JSON against the
// document's shape, the transcript, the store, the fakes, and what must never appear.
import { createManualClock, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { auditKey, followUpKey, sessionKey } from '../src/persistence.js';
import { type RunResult, runCleanupSession } from '../src/run.js';
import { SCENARIOS } from '../src/scenarios.js';
import { SessionJsonSchema, toSessionJson } from '../src/session-json.js';
import { START } from './helpers.js';

/** The session JSON printed in cleanup-flow.txt, verbatim. */
const SEED_SESSION_JSON = {
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

const scenario = (name: string) => {
  const found = SCENARIOS.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};

async function run(name: string): Promise<RunResult & { clock: ReturnType<typeof createManualClock> }> {
  const clock = createManualClock({ now: START });
  const result = await runCleanupSession({ scenario: scenario(name), clock });
  return { ...result, clock };
}

/** Every key path of a JSON value with the type found there (arrays by their first item). */
function shape(value: unknown, path = ''): Record<string, string> {
  if (Array.isArray(value))
    return { [path]: 'array', ...(value.length > 0 ? shape(value[0], `${path}[]`) : {}) };
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => shape(v, path === '' ? k : `${path}.${k}`));
    return Object.assign(path === '' ? {} : { [path]: 'object' }, ...entries);
  }
  return { [path]: value === null ? 'null' : typeof value };
}

/** The targets an action completed, over every call of the fake platform. */
const completedBy = (result: RunResult, action: string): string[] =>
  result.platform.calls
    .filter((c) => c.request.action === action)
    .flatMap((c) => [...(c.result?.completed ?? [])]);

/** Every credential reference a scenario hands to the host. */
const secretsOf = (name: string): string[] => Object.keys(scenario(name).credentials);

async function everythingWritten(result: RunResult): Promise<string> {
  const stored: JsonValue[] = [];
  for await (const entry of result.store.inner.list('cleanup:')) {
    if (!entry.key.startsWith('cleanup:session:')) stored.push(entry.value); // the record itself is internal
  }
  return JSON.stringify([
    result.transcript,
    result.sessionJson,
    result.auditExport ?? null,
    result.notifications,
    stored,
  ]);
}

describe('scenario 1: the happy path', () => {
  it('runs goal to close and ends with the document’s session JSON, state closed', async () => {
    const result = await run('happy-path');
    expect(result.done).toBe(true);
    expect(result.step).toBe('done');
    expect(SessionJsonSchema.safeParse(result.sessionJson).success).toBe(true);
    // Every field of the document's example is there, with the same type.
    const ours = shape(result.sessionJson);
    for (const [path, type] of Object.entries(shape(SEED_SESSION_JSON)))
      expect([path, ours[path]]).toEqual([path, type]);
    expect(result.sessionJson).toMatchObject({
      session_id: 'sess_1',
      state: 'closed',
      goal: { goal_type: 'dmca_takedown', intent_summary: 'remove the infringing reposts of my photos on X' },
      scope: {
        platforms: ['x'],
        targets: ['https://x.com/reposter/status/1790001', 'x:1790002'],
        unresolved: [],
      },
      auth: { auth_mode: 'oauth', credential_ref: 'vault://[redacted]' },
      evidence: { evidence_refs: ['ev1', 'ev2'], user_statement_authenticity_ack: true },
      risk_confirm: { confirm1: 'YES', confirm2: 'YES', confirm3: 'YES' },
      export: { export_before_delete: 'ask', export_answer: 'yes' },
      execution: { plan_ref: 'plan_1', status: 'success', manual: [] },
      notify: { notify_mode: 'telegram' },
      close: {
        close_ack: true,
        audit_export: true,
        followup_preference: 'remind_in_7d',
        audit_ref: auditKey('sess_1'),
      },
    });
  });

  it('exports the records before the takedown and passes the credential to the adapter only', async () => {
    const result = await run('happy-path');
    expect(result.platform.calls.map((c) => [c.request.action, c.request.targets.length])).toEqual([
      ['export', 2],
      ['takedown', 2],
    ]);
    expect(result.platform.calls[1]?.request.params).toEqual({
      plan: 'plan_1',
      credential_ref: 'vault://cleanup/x/alice-report-2026',
    });
    expect(completedBy(result, 'takedown')).toEqual(['https://x.com/reposter/status/1790001', 'x:1790002']);
    expect(result.notifications[0]).toEqual({
      mode: 'telegram',
      text: 'Cleanup sess_1: takedown done for 2 of 2 target(s).',
    });
  });

  it('schedules the 7-day reminder, keeps it across a restart and sends it once when due', async () => {
    const result = await run('happy-path');
    expect(result.notifications).toHaveLength(2);
    expect(result.notifications[1]).toEqual({
      mode: 'telegram',
      text: 'Follow-up on cleanup sess_1: takedown done for 2 of 2 target(s). Check that the content stays down.',
    });
    const text = result.transcript.join('\n');
    expect(text).toMatch(
      /reminder scheduled for 2026-04-22T09:02:45\.000Z[\s\S]*⟲ the host restarts[\s\S]*armed again[\s\S]*follow-up reminder sent via telegram/,
    );
    const reminder = (await result.store.inner.get(followUpKey('sess_1'))) as {
      dueAt: number;
      sentAt: number;
    };
    expect(reminder.sentAt).toBe(reminder.dueAt); // sent when due, not before
  });

  it('persists the audit summary and the closed record, and leaves no timer behind', async () => {
    const result = await run('happy-path');
    const audit = (await result.store.inner.get(auditKey('sess_1'))) as { transitions: { to: string }[] };
    expect(audit.transitions.map((t) => t.to).at(-1)).toBe('close');
    // the session's durable-kernel record (kind parley.fsm.session) holds the flow's state in `data`
    const record = (await result.store.inner.get(sessionKey('sess_1'))) as { data: { state: string } };
    expect(record.data.state).toBe('done');
    expect(result.auditExport).toMatchObject({ kind: 'cleanup-audit', session: { session_id: 'sess_1' } });
    expect(result.clock.pendingTimers()).toBe(0);
  });

  it('lists the evidence of each target in the audit export', async () => {
    const result = await run('happy-path');
    const audit = result.auditExport as { session: { evidence: { per_target: unknown[] } } };
    expect(audit.session.evidence.per_target).toEqual([
      {
        target: 'https://x.com/reposter/status/1790001',
        evidence_refs: ['ev1'],
        statement: 'This repost copies my original harbour photo without a license.',
      },
      {
        target: 'x:1790002',
        evidence_refs: ['ev2'],
        statement: 'This post copies my sunset photo from my portfolio without a license.',
      },
    ]);
    expect(await result.store.inner.get(auditKey('sess_1'))).toMatchObject({
      session: { evidence: { per_target: audit.session.evidence.per_target } },
    });
  });

  it('writes a readable transcript of who said what at which step', async () => {
    const { transcript } = await run('happy-path');
    expect(transcript).toContain(
      '09:00:00  goal            bot    What outcome do you want to achieve in this cleanup session?',
    );
    expect(transcript.filter((line) => line.includes(' user '))).toHaveLength(
      SCENARIOS[0]?.replies.length ?? -1,
    );
    expect(transcript.some((line) => line.includes('flow   ✗'))).toBe(false); // nothing was refused
    expect(transcript.at(-1)).toContain('follow-up reminder sent via telegram');
  });
});

describe('scenario 2: vague goal, expired credential, missing evidence, mismatched YES', () => {
  it('asks narrowing questions with examples when the goal is vague', async () => {
    const { transcript } = await run('unhappy-inputs');
    const refused = transcript.findIndex((line) =>
      line.includes('✗ exit_failed, retry: The goal is too vague'),
    );
    expect(refused).toBeGreaterThan(0);
    expect(transcript[refused + 1]).toMatch(/bot +Please narrow it down: .* For example: "DMCA takedown/);
  });

  it('asks explicitly to re-authorize on an expired credential and never falls back', async () => {
    const { transcript, record } = await run('unhappy-inputs');
    const expired = transcript.findIndex((line) =>
      line.includes('✗ exit_failed, retry: The credential is expired'),
    );
    expect(transcript[expired + 1]).toContain('bot    Please re-authorize');
    // the flow stayed on auth until a valid credential came, and kept only that one
    expect(record.flow.history.filter((h) => h.from === 'auth').map((h) => h.to)).toEqual(['evidence']);
    expect(record.flow.fields.auth).toMatchObject({
      auth_mode: 'oauth',
      credential_ref: 'vault://cleanup/reddit/bob-2026',
    });
    expect(record.flow.fields.auth).toMatchObject({ check: { status: 'valid' } });
    expect(record.flow.notices.filter((n) => n.step === 'auth')).toEqual([]);
  });

  it('asks for the missing evidence and fills nothing in', async () => {
    const { transcript, record } = await run('unhappy-inputs');
    const line = transcript.find((l) => l.includes('✗ invalid_fields, retry: missing evidence_refs'));
    expect(line).toContain('user_statement_authenticity_ack');
    expect(record.flow.fields.evidence).toMatchObject({ evidence_refs: ['ev3', 'ev4'] }); // only what the user gave
  });

  it('names the target that has no justification of its own and asks for just that one', async () => {
    const { transcript } = await run('unhappy-inputs');
    const refused = transcript.findIndex((l) =>
      l.includes('✗ exit_failed, retry: missing justifications["reddit:t3_def456"]'),
    );
    expect(refused).toBeGreaterThan(0);
    expect(transcript[refused + 2]).toMatch(/bot +Still missing: justifications\["reddit:t3_def456"\]$/);
    // the next reply justifies only #2; the draft kept #1 and the authenticity confirmation
    expect(transcript[refused + 3]).toMatch(/user +#2 ev4 /);
    expect(transcript[refused + 4]).toContain('✓ accepted → risk-confirm');
  });

  it('keeps and exports the evidence of each target on its own', async () => {
    const { record } = await run('unhappy-inputs');
    expect(toSessionJson(record).evidence?.per_target).toEqual([
      {
        target: 'https://reddit.com/r/pics/comments/abc123/my_house',
        evidence_refs: ['ev3'],
        statement: 'This post shows the street view of my house next to my name.',
      },
      {
        target: 'reddit:t3_def456',
        evidence_refs: ['ev4'],
        statement: 'This post repeats my home address under my full name.',
      },
    ]);
  });

  it('goes back to review on a YES that is not exact, and accepts full-width and padded YES', async () => {
    const { transcript, record } = await run('unhappy-inputs');
    expect(transcript.some((l) => l.includes('✗ invalid_fields, back → evidence: confirm2'))).toBe(true);
    expect(record.flow.history.filter((h) => h.event === 'back')).toEqual([
      expect.objectContaining({ from: 'risk-confirm', to: 'evidence' }),
    ]);
    expect(record.flow.fields['risk-confirm']).toEqual({ confirm1: 'YES', confirm2: 'YES', confirm3: 'YES' });
  });

  it('queues the unresolved target for manual review and keeps the normalised ones', async () => {
    const result = await run('unhappy-inputs');
    expect(result.sessionJson.scope).toEqual({
      platforms: ['reddit'],
      targets: ['https://reddit.com/r/pics/comments/abc123/my_house', 'reddit:t3_def456'],
      unresolved: [{ input: 'my-old-blog', reason: 'not a URL or a platform:id' }],
    });
    expect(result.reviews.unresolved).toEqual([
      expect.objectContaining({ session_id: 'sess_1', input: 'my-old-blog' }),
    ]);
  });

  it('defaults an unsupported notification mode to none with a notice, and sends nothing', async () => {
    const result = await run('unhappy-inputs');
    expect(result.sessionJson.notify).toEqual({ notify_mode: 'none' });
    expect(result.record.flow.notices).toEqual([
      expect.objectContaining({ step: 'notify', message: expect.stringContaining('not supported') }),
    ]);
    expect(result.notifications).toEqual([]);
    expect(result.sessionJson.state).toBe('closed');
    expect(result.auditExport).toBeUndefined(); // "no thanks": nothing exported, the summary is still saved
    expect(await result.store.inner.get(auditKey('sess_1'))).toBeDefined();
  });
});

describe('scenario 3: partial execution with the manual path, across a restart', () => {
  it('retries only the failed target, then hands it to the manual-execution queue', async () => {
    const result = await run('partial-execution');
    expect(result.platform.calls.map((c) => [c.request.action, c.request.targets])).toEqual([
      ['export', ['x:1111', 'x:2222', 'https://x.com/carol/status/3333']],
      ['delete', ['x:1111', 'x:2222', 'https://x.com/carol/status/3333']],
      ['delete', ['x:2222']],
    ]);
    // nothing was deleted twice, and x:2222 never
    expect(completedBy(result, 'delete')).toEqual(['x:1111', 'https://x.com/carol/status/3333']);
    expect(result.reviews.manual).toEqual([expect.objectContaining({ target: 'x:2222' })]);
    expect(result.sessionJson.execution).toEqual({
      plan_ref: 'plan_1',
      status: 'partial',
      completed: ['x:1111', 'https://x.com/carol/status/3333'],
      manual: ['x:2222'],
    });
    expect(result.notifications[0]?.text).toContain('1 handed to manual execution');
  });

  it('records each adapter error in the audit trail', async () => {
    const result = await run('partial-execution');
    const audit = result.auditExport as { events: { kind: string; detail: string }[] };
    expect(audit.events.filter((e) => e.kind === 'execute').map((e) => e.detail)).toContain(
      '← delete partial: 2/3 done; rate_limited (x:2222)',
    );
  });

  it('resumes after the restart from the stored snapshot at the execute prompt', async () => {
    const result = await run('partial-execution');
    const restarted = result.transcript.findIndex((l) => l.includes('⟲ the host restarts'));
    expect(result.transcript[restarted + 1]).toContain('restored sess_1 from the store');
    expect(result.transcript[restarted + 1]).toContain('step execute, answer 1');
    expect(result.transcript[restarted + 3]).toContain('Ready to execute now under manual mode. Proceed?');
    expect(result.done).toBe(true);
  });
});

describe('scenario 4: a failed save, close_pending, then a retried save', () => {
  it('marks the session close_pending while the audit save fails, then closes', async () => {
    const result = await run('close-pending');
    const pending = result.transcript.filter((l) => l.includes('session persisted as close_pending'));
    expect(pending).toHaveLength(2);
    const failedSets = result.store.calls.filter((c) => c.method === 'set' && c.failed);
    expect(failedSets.map((c) => c.key)).toEqual([auditKey('sess_1'), auditKey('sess_1')]);
    expect(result.sessionJson.state).toBe('closed');
    expect(result.record.flow.mark).toBeNull();
    expect(await result.store.inner.get(auditKey('sess_1'))).toMatchObject({ kind: 'cleanup-audit' });
    expect(result.clock.pendingTimers()).toBe(0);
  });

  it('waits 1 s and then 2 s on the clock between the tries', async () => {
    const result = await run('close-pending');
    const seconds = (line: string) => {
      const [h, m, s] = line.slice(0, 8).split(':').map(Number);
      return (h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0);
    };
    const at = (text: string) => result.transcript.filter((l) => l.includes(text)).map(seconds);
    const [first, second] = at('audit save failed');
    expect([second! - first!, at('audit summary saved')[0]! - second!]).toEqual([1, 2]);
  });
});

describe('credential references', () => {
  it.each(SCENARIOS.map((s) => s.name))(
    'never appear in the transcript, exports or queues (%s)',
    async (name) => {
      const result = await run(name);
      const written = await everythingWritten(result);
      for (const secret of secretsOf(name)) expect(written).not.toContain(secret);
      expect(written).not.toMatch(/vault:\/\/(?!\[redacted\])/);
    },
  );

  it('are kept in the internal session record, where execution needs them', async () => {
    const result = await run('happy-path');
    expect(JSON.stringify(await result.store.inner.get(sessionKey('sess_1')))).toContain(
      'vault://cleanup/x/alice-report-2026',
    );
  });
});
