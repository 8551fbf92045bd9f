// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/conflict, compiled and run; each console.log of an example is an assertion here.
import {
  judgeReviewVerdict,
  type ReviewJudgement,
  type AppliedAction,
  ATTEMPT_STATUSES,
  type AttemptRecord,
  type AttemptRequest,
  type AttemptStatus,
  type Claim,
  type ClaimPattern,
  type Conflict,
  CONFLICT_ERROR_CODES,
  CONFLICT_REPORT_REASONS,
  type ConflictDebug,
  ConflictError,
  type ConflictErrorCode,
  type ConflictLoop,
  type ConflictLoopEvents,
  type ConflictLoopOptions,
  type ConflictOutcome,
  type ConflictReport,
  type ConflictReportReason,
  type ConflictRunOptions,
  createConflictLoop,
  createReviewGate,
  DEFAULT_CLAIM_GUARD,
  DEFAULT_MAX_ERROR_RETRIES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_REVISIONS,
  DEFAULT_MAX_CALLS_PER_ATTEMPT,
  DEFAULT_REVIEW_TTL_MS,
  type RecognisedCall,
  type AlreadyApplied,
  DEFAULT_FIELD_CLAIM_PATTERNS,
  type AuthoritativeField,
  type FieldClaimDetectorOptions,
  type FieldClaimPattern,
  defineFieldClaimDetector,
  type DeferredCall,
  defineDetector,
  findClaims,
  defineProtectedFieldsDetector,
  type DetectContext,
  type DetectedConflict,
  type Detector,
  type DetectorInit,
  type DetectResult,
  type FailedCall,
  type FailedCallIssue,
  type GenerateContext,
  type GenerateFn,
  type Proposal,
  type ProtectedFieldsDetectorOptions,
  type RetryFeedback,
  REVIEW_SEVERITIES,
  REVIEW_VERDICTS,
  type ReviewContext,
  type Reviewer,
  type ReviewGate,
  type ReviewGateOptions,
  type ReviewIssue,
  type ReviewRunOptions,
  type ReviewVerdict,
  type FeedbackMessage,
  toFeedbackMessages,
  toFeedbackText,
  TOOL_FAILURE_STATUSES,
  type ToolCall,
  type ToolFailureStatus,
  type ToolFeedback,
  type ToolGateContext,
  type ToolGateLike,
  type ToolGateResult,
} from '../src/index.js';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';

describe('conflict-loop.ts examples', () => {
  it('DEFAULT_MAX_RETRIES', async () => {
    expect([DEFAULT_MAX_RETRIES]).toEqual([2]);
  });

  it('DEFAULT_MAX_CALLS_PER_ATTEMPT', async () => {
    expect([DEFAULT_MAX_CALLS_PER_ATTEMPT]).toEqual([50]);
  });

  it('DEFAULT_MAX_ERROR_RETRIES', async () => {
    expect([DEFAULT_MAX_ERROR_RETRIES]).toEqual([1]);
  });

  it('ConflictLoopOptions', async () => {
    const options: ConflictLoopOptions<unknown> = {
      detectors: [defineProtectedFieldsDetector({ fields: ['order.total'] })],
      maxRetries: 1,
      clock: createManualClock(),
    };
  });

  it('ConflictRunOptions', async () => {
    const run: ConflictRunOptions<{ hp: number }, string> = {
      input: 'The goblin attacks',
      generate: async (request) => ({ text: `(${request.input}) The goblin misses.` }),
      readState: () => ({ hp: 20 }),
    };
  });

  it('ConflictLoop', async () => {
    const loop: ConflictLoop<unknown> = createConflictLoop();
    const off = loop.on('attempt', ({ record }) => console.log(record.status));
    off();
  });

  it('createConflictLoop', async () => {
    // Stock changes only through the ship tool: "we ship 5 crates" needs a ship call for 5.
    const shipments = defineDetector({
      name: 'shipment_claim',
      tools: ['ship'],
      detect: (proposal, _state, { effects }) =>
        findClaims(proposal.text, [{ pattern: /\bship (?<count>\d+) crates\b/i }])
          .filter((claim) => !effects.some((call) => call.args?.['count'] === Number(claim.groups['count'])))
          .map((claim) => ({
            expected_state_snippet: { stock_changes_only_via: 'ship' },
            mismatch_reason: `The text claims a shipment ("${claim.text}") that no ship call makes`,
            instructions: 'Request a ship call for every shipment you describe.',
          })),
    });
    const state = { crates: 20 };
    const loop = createConflictLoop<typeof state>({
      detectors: [shipments],
      gate: async (calls) => {
        for (const call of calls) state.crates -= Number(call.args['count']);
        return { executed: calls.map((call) => ({ id: call.id, tool: call.tool })) };
      },
      clock: createManualClock(),
    });

    const answers: Proposal[] = [
      { text: 'Done: we ship 5 crates to Oslo.' },
      {
        text: 'Done: we ship 5 crates to Oslo.',
        tool_calls: [{ id: 'call_1', tool: 'ship', args: { count: 5, to: 'Oslo' } }],
      },
    ];
    const outcome = await loop.run({
      input: 'Send Oslo its order',
      generate: async (request) => answers[request.feedback.length]!,
      readState: () => state,
    });
    expect([outcome.ok, outcome.retries, state.crates]).toEqual([true, 1, 15]);
  });
});

describe('detector.ts examples', () => {
  it('DetectContext', async () => {
    const context: DetectContext = { attempt: 2, applied: [{ id: 'call_1', tool: 'hp_delta' }] };
  });

  it('DetectedConflict', async () => {
    const found: DetectedConflict = {
      expected_state_snippet: { alive_state: 'dead' },
      mismatch_reason: 'A dead character speaks',
      instructions: 'Dead characters do not act; narrate without them.',
      evidence: 'Borin says',
    };
  });

  it('DetectResult', async () => {
    const clean: DetectResult = undefined;
  });

  it('Detector', async () => {
    const silent: Detector<unknown> = defineDetector({ name: 'silent', detect: () => undefined });
  });

  it('DetectorInit', async () => {
    const init: DetectorInit<{ night: boolean }> = {
      name: 'no_sun_at_night',
      detect: (proposal, state) =>
        state.night &&
        /sunlight/i.test(proposal.text) && {
          expected_state_snippet: { night: true },
          mismatch_reason: 'It is night, the text describes sunlight',
          instructions: 'Describe a night scene.',
        },
    };
  });

  it('defineDetector', async () => {
    interface Campaign {
      dead: readonly string[];
    }

    const deadDoNotSpeak = defineDetector<Campaign>({
      name: 'dead_do_not_speak',
      detect: (proposal, state) =>
        state.dead
          .filter((name) => proposal.text.includes(`${name} says`))
          .map((name) => ({
            expected_state_snippet: { [name]: { alive_state: 'dead' } },
            mismatch_reason: `${name} is dead but speaks`,
            instructions: `${name} is dead; do not give them lines.`,
            evidence: `${name} says`,
          })),
    });

    const found = await deadDoNotSpeak.detect(
      { text: 'Borin says hello.' },
      { dead: ['Borin'] },
      { attempt: 1, applied: [] },
    );
    expect([found.length]).toEqual([1]);
  });
});

describe('claims.ts examples', () => {
  it('ClaimPattern', async () => {
    const ships: ClaimPattern = { pattern: /\bships? (?<amount>\d+) crates?\b/i };
  });

  it('DEFAULT_CLAIM_GUARD', async () => {
    expect([DEFAULT_CLAIM_GUARD.test('You cannot '), DEFAULT_CLAIM_GUARD.test('You ')]).toEqual([
      true,
      false,
    ]);
  });

  it('Claim', async () => {
    const claim: Claim = { text: 'ships 5 crates', groups: { amount: '5' }, pattern: 0 };
  });

  it('findClaims', async () => {
    const patterns = [{ pattern: /\bships? (?<amount>\d+) crates?\b/i }];
    const claims = findClaims('We ship 5 crates. We cannot ship 9 crates.', patterns);
    expect([claims.map((claim) => claim.groups['amount'])]).toEqual([['5']]);
  });
});

describe('field-claims.ts examples', () => {
  it('AuthoritativeField', () => {
    const job: AuthoritativeField = {
      field: 'characters.pc_aria.job',
      subjects: ['Aria', 'her'],
      names: ['class', 'job'],
      value: 'ranger',
    };
    const bridge: AuthoritativeField = { field: 'map.features.bridge', names: ['bridge'], value: false };
    expect([job.value, bridge.value]).toEqual(['ranger', false]);
  });

  it('FieldClaimPattern', () => {
    const sworn: FieldClaimPattern = {
      pattern: /\b(?<subject>\w+) swears? (?:an? )?(?<name>oath) of (?<value>\w+)/i,
    };
    expect(sworn.pattern.test('Aria swears an oath of silence')).toBe(true);
  });

  it('DEFAULT_FIELD_CLAIM_PATTERNS', () => {
    expect(
      DEFAULT_FIELD_CLAIM_PATTERNS.some(({ pattern }) => pattern.test('Her class is now paladin.')),
    ).toBe(true);
  });

  it('FieldClaimDetectorOptions', () => {
    const options: FieldClaimDetectorOptions<{ job: string }> = {
      fields: (state) => [{ field: 'job', subjects: ['her'], names: ['class'], value: state.job }],
    };
    expect(options.fields({ job: 'ranger' })).toHaveLength(1);
  });

  it('defineFieldClaimDetector', async () => {
    const sheet = defineFieldClaimDetector<{ job: string; bridge: boolean }>({
      fields: (state) => [
        { field: 'characters.pc_aria.job', subjects: ['Aria', 'her'], names: ['class'], value: state.job },
        { field: 'map.features.bridge', names: ['bridge'], value: state.bridge },
      ],
    });
    const state = { job: 'ranger', bridge: false };
    const context = { attempt: 1, applied: [] };
    const rewrite = await sheet.detect(
      { text: 'The bridge has always been there. Her class is now paladin.' },
      state,
      context,
    );
    const prose = await sheet.detect(
      { text: 'Her voice is now calm; her class is now ranger.' },
      state,
      context,
    );
    expect([rewrite.length, prose.length]).toEqual([2, 0]);
  });
});

describe('protected-fields.ts examples', () => {
  it('ProtectedFieldsDetectorOptions', async () => {
    const options: ProtectedFieldsDetectorOptions = {
      fields: ['world.rules', 'map.areas', 'characters.*.hp.max', 'characters.*.race'],
      proposed: (proposal) => proposal.structured?.['state_patch'],
    };
  });

  it('defineProtectedFieldsDetector', async () => {
    const state = { characters: { pc_1: { hp: { current: 12, max: 20 } } } };
    const sheet = defineProtectedFieldsDetector({ fields: ['characters.*.hp.max'] });
    const found = await sheet.detect(
      { text: 'You feel stronger.', structured: { characters: { pc_1: { hp: { max: 30 } } } } },
      state,
      { attempt: 1, applied: [] },
    );
    expect([found[0]?.evidence]).toEqual(['characters.pc_1.hp.max']);
  });
});

describe('errors.ts examples', () => {
  it('CONFLICT_ERROR_CODES', async () => {
    expect([CONFLICT_ERROR_CODES.includes('cancelled')]).toEqual([true]);
  });

  it('ConflictErrorCode', async () => {
    const code: ConflictErrorCode = 'gate_failed';
  });

  it('ConflictError', async () => {
    expect.assertions(1);
    try {
      createConflictLoop({ maxRetries: -1 });
    } catch (err) {
      expect([err instanceof ConflictError, isParleyError(err, 'invalid_argument')]).toEqual([true, true]);
    }
  });
});

describe('feedback.ts examples', () => {
  it('FeedbackMessage and toFeedbackMessages', () => {
    const message: FeedbackMessage = { role: 'system', content: 'Attempt 1 was rejected. …' };
    const messages = toFeedbackMessages([
      { attempt: 1, conflict_debug: [], rejected_output: { text: 'You take 4 damage.' } },
    ]);
    expect([message.role, messages.map((m) => m.role), messages[0]?.content]).toEqual([
      'system',
      ['assistant', 'system'],
      '{"text":"You take 4 damage.","tool_calls":[]}',
    ]);
  });

  it('toFeedbackText', async () => {
    const text = toFeedbackText([
      {
        attempt: 1,
        conflict_debug: [],
        tool_feedback: {
          failed_calls: [{ id: 'call_1', tool: 'move', status: 'rejected', reason: 'area locked' }],
        },
      },
    ]);
    expect([text.includes('"failed_calls"')]).toEqual([true]);
  });
});

describe('gate.ts examples', () => {
  it('ToolGateContext', async () => {
    function isRetry(context: ToolGateContext<unknown>): boolean {
      return context.attempt > 1;
    }
  });

  it('ToolGateResult', async () => {
    const result: ToolGateResult = {
      executed: [{ id: 'call_1', tool: 'hp_delta', result: { hp: 15 } }],
      feedback: { failed_calls: [{ id: 'call_2', tool: 'move', status: 'rejected', reason: 'area locked' }] },
    };
  });

  it('ToolGateLike', async () => {
    interface Campaign {
      locked: boolean;
      hp: number;
    }

    const gate: ToolGateLike<Campaign> = async (calls, { state }) => {
      const executed = [];
      const failed_calls = [];
      for (const call of calls) {
        if (call.tool === 'hp_delta') {
          state.hp += Number(call.args['delta']);
          executed.push({ id: call.id, tool: call.tool, args: call.args });
        } else {
          failed_calls.push({
            id: call.id,
            tool: call.tool,
            status: 'rejected' as const,
            reason: 'tool not enabled',
          });
        }
      }
      return { executed, feedback: { failed_calls } };
    };
  });
});

describe('review-gate.ts examples', () => {
  it('DEFAULT_REVIEW_TTL_MS', async () => {
    expect([DEFAULT_REVIEW_TTL_MS / 86_400_000]).toEqual([7]);
  });

  it('DEFAULT_MAX_REVISIONS', async () => {
    expect([DEFAULT_MAX_REVISIONS]).toEqual([3]);
  });

  it('ReviewContext', async () => {
    const context: ReviewContext<string> = {
      attempt: 1,
      revisions: 0,
      request: { input: 'brief', feedback: [] },
      signal: undefined,
    };
  });

  it('Reviewer', async () => {
    const reviewer: Reviewer<{ stop_loss: number }> = (thesis) =>
      thesis.stop_loss > 0
        ? { verdict: 'pass' }
        : { verdict: 'revise', issues: [{ field: 'stop_loss', description: 'Missing stop loss' }] };
  });

  it('ReviewGateOptions', async () => {
    const options: ReviewGateOptions<string> = {
      review: (text) => (text.length > 0 ? { verdict: 'pass' } : { verdict: 'block', summary: 'empty' }),
      maxRevisions: 3,
      targets: ['quant_strategist', 'bullish_researcher'],
    };
  });

  it('ReviewRunOptions', async () => {
    const run: ReviewRunOptions<string, string> = {
      input: 'BTC/USDT thesis',
      generate: async (request) =>
        `thesis v${request.feedback.length + 1} for ${request.target ?? 'quant_strategist'}`,
    };
  });

  it('ReviewGate', async () => {
    const gate: ReviewGate<string> = createReviewGate({ review: () => ({ verdict: 'pass' }) });
  });

  it('createReviewGate', async () => {
    interface Thesis {
      stop_loss?: number;
    }
    const gate = createReviewGate<Thesis>({
      review: (thesis) =>
        thesis.stop_loss === undefined
          ? {
              verdict: 'revise',
              revise_target: 'quant_strategist',
              issues: [{ severity: 'critical', field: 'stop_loss', description: 'Missing' }],
            }
          : { verdict: 'pass' },
      clock: createManualClock(),
    });

    const outcome = await gate.run({
      input: 'converge the briefs',
      generate: async (request) => (request.feedback.length === 0 ? {} : { stop_loss: 61_200 }),
    });
    expect([outcome.ok, outcome.retries]).toEqual([true, 1]);
  });
});

describe('types.ts examples', () => {
  it('ToolCall', async () => {
    const call: ToolCall = {
      id: 'call_001',
      tool: 'hp_delta',
      args: { target_character_id: 'pc_1', delta: -5, cause: 'goblin arrow' },
      reason: 'The goblin hits',
    };
  });

  it('Proposal', async () => {
    const proposal: Proposal = {
      text: 'The arrow hits: you lose 5 HP.',
      tool_calls: [
        { id: 'call_1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' } },
      ],
    };
  });

  it('ConflictDebug', async () => {
    const debug: ConflictDebug = {
      expected_state_snippet: { 'pc_1.hp': { current: 20, max: 20 } },
      mismatch_reason: 'The text says "you lose 5 HP" but no hp_delta call settles it',
      instructions: 'Do not change HP in the narrative; request an hp_delta tool call.',
    };
  });

  it('Conflict', async () => {
    const conflict: Conflict = {
      detector: 'move_claim',
      evidence: 'moves to the tavern',
      expected_state_snippet: { current_area_ids: ['market'] },
      mismatch_reason: 'The text claims a move but no move call was proposed',
      instructions: 'Request a move tool call instead of narrating the move.',
    };
  });

  it('TOOL_FAILURE_STATUSES', async () => {
    expect([TOOL_FAILURE_STATUSES]).toEqual([['rejected', 'error']]);
  });

  it('ToolFailureStatus', async () => {
    const status: ToolFailureStatus = 'rejected';
  });

  it('FailedCall', async () => {
    const failed: FailedCall = {
      id: 'call_001',
      tool: 'move',
      status: 'rejected',
      reason: 'area_locked: the movement lock is not released',
      disabled_until: 'the door is unlocked',
      code: 'tool_refused',
      tool_reason: 'area_locked',
    };
  });

  it('FailedCallIssue', async () => {
    const issue: FailedCallIssue = { path: ['to'], pathText: 'to', message: 'Required' };
  });

  it('ToolFeedback', async () => {
    const feedback: ToolFeedback = {
      failed_calls: [{ id: 'call_9', tool: 'teleport', status: 'rejected', reason: 'tool not enabled' }],
    };
  });

  it('AppliedAction', async () => {
    const action: AppliedAction = { id: 'call_1', tool: 'hp_delta', args: { delta: -5 }, result: { hp: 15 } };
  });

  it('RecognisedCall', async () => {
    const again: RecognisedCall = { id: 'call_C', tool: 'hp_delta', as: 'call_A', status: 'applied' };
  });

  it('AlreadyApplied', async () => {
    const done: AlreadyApplied = { id: 'call_A', tool: 'hp_delta', args: { delta: -5 }, attempt: 1 };
  });

  it('DeferredCall', async () => {
    const held: DeferredCall = { id: 'call_3', tool: 'delete_save', reason: 'awaiting confirmation cfm_1' };
  });

  it('REVIEW_SEVERITIES', async () => {
    expect([REVIEW_SEVERITIES]).toEqual([['critical', 'major', 'minor']]);
  });

  it('ReviewIssue', async () => {
    const issue: ReviewIssue = {
      severity: 'major',
      field: 'stop_loss',
      description: 'The stop loss is above the entry zone',
      suggestion: 'Put it below 61 200',
    };
  });

  it('REVIEW_VERDICTS', async () => {
    expect([REVIEW_VERDICTS]).toEqual([['pass', 'revise', 'block']]);
  });

  it('ReviewVerdict', async () => {
    const verdict: ReviewVerdict = {
      verdict: 'revise',
      revise_target: 'bullish_researcher',
      issues: [{ severity: 'major', field: 'key_levels[0].evidence', description: 'No evidence given' }],
    };
  });

  it('RetryFeedback', async () => {
    const feedback: RetryFeedback = {
      attempt: 1,
      conflict_debug: [],
      tool_feedback: {
        failed_calls: [{ id: 'call_1', tool: 'move', status: 'rejected', reason: 'area locked' }],
      },
      rejected_output: { text: 'You walk into the vault.' },
    };
  });

  it('AttemptRequest', async () => {
    const request: AttemptRequest<{ prompt: string }> = {
      input: { prompt: 'Describe the tavern' },
      feedback: [],
    };
  });

  it('GenerateContext', async () => {
    const context: GenerateContext = { attempt: 1, signal: undefined };
  });

  it('GenerateFn', async () => {
    const generate: GenerateFn<string, Proposal> = async (request) => ({
      text: `Echo: ${request.input} (${request.feedback.length} corrections)`,
    });
  });

  it('ATTEMPT_STATUSES', async () => {
    expect([ATTEMPT_STATUSES.includes('tool_rejected')]).toEqual([true]);
  });

  it('AttemptStatus', async () => {
    const status: AttemptStatus = 'conflict';
  });

  it('AttemptRecord', async () => {
    function line(record: AttemptRecord<unknown>): string {
      return `#${record.attempt} ${record.status} in ${record.durationMs} ms`;
    }
  });

  it('CONFLICT_REPORT_REASONS', async () => {
    expect([CONFLICT_REPORT_REASONS.includes('max_retries')]).toEqual([true]);
  });

  it('ConflictReportReason', async () => {
    const reason: ConflictReportReason = 'revise_limit';
  });

  it('ConflictReport', async () => {
    function notify(report: ConflictReport): string {
      return `${report.reason} after ${report.attempts} attempts: ${report.summary}`;
    }
  });

  it('ConflictOutcome', async () => {
    function show(outcome: ConflictOutcome<Proposal, string>): string {
      return outcome.ok ? outcome.output.text : `A game master will check this turn (${outcome.code}).`;
    }
  });

  it('ConflictLoopEvents', async () => {
    const onAttempt = (payload: ConflictLoopEvents['attempt']): void => {
      console.log(payload.record.status);
    };
  });
});

describe('README', () => {
  it('runs the review-store snippet: the round count lives with the task in the store', async () => {
    const store = createMemoryStore(); // @parley/redis in production
    const gate = createReviewGate<{ stop_loss?: number }>({
      review: (thesis) =>
        thesis.stop_loss === undefined
          ? { verdict: 'revise', issues: [{ field: 'stop_loss', description: 'Missing' }] }
          : { verdict: 'pass' },
      store,
    });
    const outcome = await gate.run({
      input: 'converge the briefs',
      taskId: 'quant-2026-04-10:converge',
      generate: async (request) => (request.feedback.length === 0 ? {} : { stop_loss: 61_200 }),
    });
    const stored = (await store.get('review:quant-2026-04-10:converge')) as { data: unknown };
    expect([outcome.ok, stored.data]).toEqual([true, { revisions: 1 }]);
  });

  it('runs the snippet: a contradiction is retried with the debug appended, then the hp_delta runs once', async () => {
    const campaign = { hp: 20, at: 'market' };
    const hpClaims = defineDetector<typeof campaign>({
      name: 'hp_claim',
      tools: ['hp_delta'],
      detect: (proposal, _state, { effects }) =>
        findClaims(proposal.text, [
          { pattern: /受到(?<n>\d+)点伤害/u },
          { pattern: /\blose (?<n>\d+) HP\b/i },
        ])
          .filter((claim) => !effects.some((call) => call.args?.['delta'] === -Number(claim.groups['n'])))
          .map((claim) => ({
            expected_state_snippet: { hp: campaign.hp },
            mismatch_reason: `The text claims "${claim.text}" but no hp_delta call settles it`,
            instructions: 'Request an hp_delta tool call for every HP change you describe.',
            evidence: claim.text,
          })),
    });
    const gate: ToolGateLike<typeof campaign> = async (calls, { state }) => {
      const executed = [];
      const failed_calls = [];
      for (const call of calls) {
        if (call.tool === 'hp_delta') {
          state.hp += Number(call.args['delta']);
          executed.push({ id: call.id, tool: call.tool, args: call.args });
        } else {
          failed_calls.push({
            id: call.id,
            tool: call.tool,
            status: 'rejected' as const,
            reason: 'area locked',
          });
        }
      }
      return { executed, feedback: { failed_calls } };
    };
    const loop = createConflictLoop<typeof campaign>({
      detectors: [hpClaims],
      gate,
      maxRetries: 2,
      clock: createManualClock(),
    });
    const answers: Proposal[] = [
      { text: '哥布林的箭射中了你，你受到5点伤害。' },
      {
        text: '哥布林的箭射中了你，你受到5点伤害。',
        tool_calls: [
          {
            id: 'call_1',
            tool: 'hp_delta',
            args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' },
          },
        ],
      },
    ];
    const printed: string[] = [];
    const outcome = await loop.run({
      input: { messages: [{ role: 'user', content: 'I open the door' }] },
      generate: async (request) => {
        printed.push(toFeedbackText(request.feedback) === '' ? 'first try' : 'retry with conflict_debug');
        return answers[request.feedback.length]!;
      },
      readState: () => campaign,
    });
    expect(printed).toEqual(['first try', 'retry with conflict_debug']);
    expect(outcome.ok && [outcome.output.text, outcome.appliedActions.length, campaign.hp]).toEqual([
      '哥布林的箭射中了你，你受到5点伤害。',
      1,
      15,
    ]);
  });

  it('judgeReviewVerdict (review-verdict.ts)', () => {
    const answer = { verdict: 'revise', revise_target: 'writer', issues: [{ description: 'no stop loss' }] };
    expect(judgeReviewVerdict(answer).kind).toBe('revise');
    expect(judgeReviewVerdict(answer, ['editor']).kind).toBe('escalate');
    expect(judgeReviewVerdict({ verdict: 'maybe' }).kind).toBe('escalate');
  });

  it('ReviewJudgement (review-verdict.ts)', () => {
    const judged: ReviewJudgement = {
      kind: 'escalate',
      reason: 'invalid_verdict',
      message: 'the verdict is not an object',
    };
    expect(judged.kind).toBe('escalate');
  });
});
