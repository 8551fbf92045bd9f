// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// biome-ignore-all lint/correctness/noUnusedFunctionParameters: examples show signatures
// Every TSDoc @example of @parley/confirm, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { describe, it } from 'vitest';
import {
  type ApproverPolicy,
  AUTHORIZE_REFUSAL_CODES,
  type AuthorizeResult,
  authorizeStep,
  canonicalJson,
  CARD_REFUSAL_CODES,
  CONFIRM_ERROR_CODES,
  CONFIRM_OUTCOMES,
  type ConfirmAction,
  consentFactsOf,
  allowanceCovers,
  allowanceOf,
  allowanceScope,
  type StandingAllowance,
  type AllowanceView,
  promptedFact,
  type ConfirmDecision,
  type ConfirmErrorCode,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmMessages,
  type ConfirmOutcome,
  type ConfirmRequest,
  type ConfirmStep,
  type AdmissionRules,
  type AdmissionView,
  type AnswerRules,
  type ConfirmationAdmission,
  type ConfirmationAnswer,
  type ConfirmationVerdict,
  type DecisionDetails,
  type Confirmation,
  type PromptShown,
  type ConfirmationEffect,
  type ConfirmationEvent,
  type ConfirmationRecord,
  type ConfirmationTransition,
  type ConfirmRules,
  type ConfirmRulesOptions,
  confirmRules,
  CONFIRMATION_RECORD,
  DECISION_RECORD,
  type DecisionRecord,
  confirmStep,
  createConfirmation,
  createConfirmGate,
  DECISION_REASONS,
  type DecisionReason,
  DEFAULT_AFTER_DECISION_MS,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_CONFIRMATIONS,
  DEFAULT_VOCABULARY,
  DEFAULT_VOCABULARY_WORDS,
  defineVocabulary,
  digestAction,
  IGNORED_REPLY_CODES,
  MAX_REPLY_LENGTH,
  MAX_SUMMARY_LENGTH,
  normalizeExact,
  normalizeReply,
  parseReply,
  type PendingConfirmation,
  type FollowedConfirmation,
  type UsableDecision,
  REPLY_VERDICTS,
  type ReplyVerdict,
  type ResumeHandler,
  type NewConfirmation,
  type Vocabulary,
  type VocabularyWords,
} from '../src/index.js';
import { createKernel, createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createMessageBus } from '@parley/bus';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/confirm examples', () => {
  it('ConfirmAction (digest.ts)', async () => {
    const action: ConfirmAction = { name: 'sql.delete', args: { table: 'orders', where: { status: 1 } } };
  });

  it('canonicalJson (digest.ts)', async () => {
    log(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }));
    expectPrinted('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('digestAction (digest.ts)', async () => {
    const a = await digestAction({ name: 'drop', args: { table: 't', cascade: false } });
    const b = await digestAction({ name: 'drop', args: { cascade: false, table: 't' } });
    log(a === b, a.length);
    expectPrinted('true 64');
  });

  it('CONFIRM_ERROR_CODES (errors.ts)', async () => {
    log(CONFIRM_ERROR_CODES.includes('closed'));
    expectPrinted('true');
  });

  it('ConfirmErrorCode (errors.ts)', async () => {
    const code: ConfirmErrorCode = 'invalid_action';
  });

  it('ConfirmError (errors.ts)', async () => {
    try {
      defineVocabulary({ confirm: ['ok'], cancel: ['OK'] });
    } catch (err) {
      log(isParleyError(err, 'invalid_vocabulary'));
      expectPrinted('true');
    }
  });

  it('createConfirmGate (gate.ts)', async () => {
    const clock = createManualClock({ now: 1_000 });
    const bus = createMessageBus({ clock });
    const gate = createConfirmGate({ bus, clock });
    const action = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };
    const delivered = new Promise((resolve) => gate.on('prompted', resolve)); // replies count from here
    const pending = gate.request({
      sessionKey: 'feishu:oc_1',
      action,
      summary: action.args.sql,
      requester: 'ou_alice',
    });
    await delivered;
    log((await bus.receiveOutbound()).text.startsWith('以下操作需要确认'));
    expectPrinted('true');
    await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_alice', text: '确认' });
    const decision = await pending;
    log(decision.outcome, decision.decidedBy);
    expectPrinted('confirmed ou_alice');
    log((await gate.authorize(decision, action)).ok);
    expectPrinted('true');
    log(bus.size.inbound);
    expectPrinted('0');
  });

  it('DEFAULT_CONFIRM_TIMEOUT_MS (types.ts)', async () => {
    log(DEFAULT_CONFIRM_TIMEOUT_MS);
    expectPrinted('300000');
  });

  it('DEFAULT_MAX_PENDING_CONFIRMATIONS (types.ts)', async () => {
    log(DEFAULT_MAX_PENDING_CONFIRMATIONS);
    expectPrinted('10000');
  });

  it('DEFAULT_AFTER_DECISION_MS (types.ts)', async () => {
    log(DEFAULT_AFTER_DECISION_MS);
    expectPrinted('30000');
  });

  it('MAX_SUMMARY_LENGTH (types.ts)', async () => {
    log(MAX_SUMMARY_LENGTH);
    expectPrinted('500');
  });

  it('CONFIRM_OUTCOMES (types.ts)', async () => {
    log(CONFIRM_OUTCOMES.length);
    expectPrinted('6');
  });

  it('ConfirmOutcome (types.ts)', async () => {
    const outcome: ConfirmOutcome = 'timed_out';
  });

  it('DECISION_REASONS (types.ts)', async () => {
    log(DECISION_REASONS.includes('step_mismatch'));
    expectPrinted('true');
  });

  it('DecisionReason (types.ts)', async () => {
    const reason: DecisionReason = 'card';
  });

  it('ApproverPolicy (types.ts)', async () => {
    const admins: ApproverPolicy = ['ou_admin_1', 'ou_admin_2'];
  });

  it('ConfirmStep (types.ts)', async () => {
    const step: ConfirmStep = { prompt: 'This may be high-impact. Confirm #1 (YES).', expect: 'YES' };
  });

  it('ConfirmRequest (types.ts)', async () => {
    const request: ConfirmRequest = {
      sessionKey: 'feishu:oc_1',
      action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
      summary: 'DELETE FROM orders WHERE status = 1',
      requester: 'ou_alice',
    };
  });

  it('ConfirmDecision (types.ts)', async () => {
    function explain(decision: ConfirmDecision): string {
      return `${decision.outcome} (${decision.reason}) by ${decision.decidedBy ?? 'nobody'}`;
    }
  });

  it('AUTHORIZE_REFUSAL_CODES (types.ts)', async () => {
    log(AUTHORIZE_REFUSAL_CODES.includes('action_mismatch'));
    expectPrinted('true');
  });

  it('AuthorizeResult (types.ts)', async () => {
    const refused: AuthorizeResult = { ok: false, code: 'action_mismatch' };
  });

  it('CARD_REFUSAL_CODES (types.ts)', async () => {
    log(CARD_REFUSAL_CODES.includes('forged'));
    expectPrinted('true');
  });

  it('IGNORED_REPLY_CODES (types.ts)', async () => {
    log(IGNORED_REPLY_CODES.includes('before_delivery'));
    expectPrinted('true');
  });

  it('FollowedConfirmation (decision.ts)', async () => {
    const followed: FollowedConfirmation = { id: 'cfm_1', sessionKey: 'feishu:oc_1', delivered: true };
  });

  it('PendingConfirmation (types.ts)', async () => {
    const view: PendingConfirmation = {
      id: 'cfm_1',
      sessionKey: 'feishu:oc_1',
      actionName: 'sql.delete',
      requester: 'ou_a',
      state: 'prompted',
      step: 0,
      expiresAt: 300_000,
      delivered: true,
      restored: false,
      remote: false,
    };
  });

  it('ConfirmEvents (types.ts)', async () => {
    const onDecided = (event: ConfirmEvents['decided']): void => log(event.decision.outcome);
  });

  it('ConfirmMessages (types.ts)', async () => {
    const messages: Partial<ConfirmMessages> = { prompt: (summary) => `OK to run ${summary}? (yes/no)` };
  });

  it('ResumeHandler (types.ts)', async () => {
    const resumeDelete: ResumeHandler = async (decision, gate) => {
      const auth = await gate.authorize(decision, decision.action);
      if (auth.ok) log('run', decision.action.args);
    };
  });

  it('ConfirmGateOptions (types.ts)', async () => {
    const options: ConfirmGateOptions = { bus: createMessageBus(), approvers: 'any', whenPending: 'reject' };
  });

  it('ConfirmGate (types.ts)', async () => {
    async function guarded(
      gate: ConfirmGate,
      action: ConfirmAction,
      run: () => Promise<void>,
    ): Promise<boolean> {
      const decision = await gate.request({
        sessionKey: 'feishu:oc_1',
        action,
        summary: action.name,
        requester: 'ou_a',
      });
      const auth = await gate.authorize(decision, action);
      if (auth.ok) await run();
      return auth.ok;
    }
  });

  it('REPLY_VERDICTS (vocabulary.ts)', async () => {
    log(REPLY_VERDICTS);
    expectPrinted("[ 'confirm', 'cancel', 'always', 'unrecognised' ]");
  });

  it('ReplyVerdict (vocabulary.ts)', async () => {
    const verdict: ReplyVerdict = 'unrecognised';
  });

  it('MAX_REPLY_LENGTH (vocabulary.ts)', async () => {
    log(MAX_REPLY_LENGTH);
    expectPrinted('32');
  });

  it('Vocabulary (vocabulary.ts)', async () => {
    const vocabulary: Vocabulary = DEFAULT_VOCABULARY;
    log(vocabulary.confirm.has('确认'));
    expectPrinted('true');
  });

  it('VocabularyWords (vocabulary.ts)', async () => {
    const words: VocabularyWords = { confirm: ['ja'], cancel: ['nein'] };
  });

  it('normalizeReply (vocabulary.ts)', async () => {
    log(normalizeReply('  ＹＥＳ！ '));
    expectPrinted('yes');
    log(normalizeReply('确\u200b认。'));
    expectPrinted('确认');
  });

  it('normalizeExact (vocabulary.ts)', async () => {
    log(normalizeExact(' ＹＥＳ\u200d '));
    expectPrinted('YES');
  });

  it('defineVocabulary (vocabulary.ts)', async () => {
    const vocabulary = defineVocabulary({
      ...DEFAULT_VOCABULARY_WORDS,
      confirm: [...DEFAULT_VOCABULARY_WORDS.confirm, 'ja'],
    });
    log(parseReply('Ja!', vocabulary));
    expectPrinted('confirm');
  });

  it('DEFAULT_VOCABULARY_WORDS (vocabulary.ts)', async () => {
    log(DEFAULT_VOCABULARY_WORDS.cancel.includes('取消'));
    expectPrinted('true');
  });

  it('DEFAULT_VOCABULARY (vocabulary.ts)', async () => {
    log(DEFAULT_VOCABULARY.cancel.has('cancel'));
    expectPrinted('true');
  });

  it('parseReply (vocabulary.ts)', async () => {
    log(parseReply('确认'));
    expectPrinted('confirm');
    log(parseReply(' Cancel. '));
    expectPrinted('cancel');
    log(parseReply('确认取消'));
    expectPrinted('unrecognised');
    log(parseReply('уеѕ'));
    expectPrinted('unrecognised');
  });

  it('confirmStep (internal/machine.ts)', async () => {
    const rules = confirmRules();
    const request = {
      sessionKey: 'telegram:42',
      action: { name: 'sql.drop', args: { table: 't' } },
      summary: 'DROP TABLE t',
      requester: 'alice',
    };
    let c = createConfirmation(request, { id: 'c1', now: 0 });
    c = confirmStep(c, { type: 'prompt' }, 0, rules).next;
    const early = {
      type: 'reply',
      text: 'yes',
      senderId: 'alice',
      arrival: 1,
      order: undefined,
      bot: false,
      lateChecked: true,
    } as const;
    c = confirmStep(c, { type: 'send_begun', sends: 1, seq: 2 }, 5, rules).next;
    log(confirmStep(c, early, 6, rules).result);
    expectPrinted("{ kind: 'ignore', code: 'before_delivery', tooEarly: true }");
  });

  it('Confirmation (step.ts)', async () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: {} },
      summary: 'Deploy',
      requester: 'U1',
    };
    const c: Confirmation = createConfirmation(request, { id: 'c1', now: 0 });
    log(c.state, c.record.rev, JSON.parse(JSON.stringify(c)).record.id);
    expectPrinted('new 0 c1');
  });

  it('ConfirmationRecord (step.ts)', async () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: {} },
      summary: 'Deploy',
      requester: 'U1',
    };
    const record: ConfirmationRecord = createConfirmation(request, { id: 'c1', now: 0 }).record;
    log(record.action.digest.length, record.timeoutMs);
    expectPrinted('64 300000');
  });

  it('ConfirmationEvent (step.ts)', async () => {
    const reply: ConfirmationEvent = {
      type: 'reply',
      text: 'yes',
      senderId: 'U1',
      arrival: 7,
      order: undefined,
      bot: false,
    };
    log(reply.type);
    expectPrinted('reply');
  });

  it('ConfirmationEffect (step.ts)', async () => {
    const effect: ConfirmationEffect = { type: 'timer', delayMs: 60_000 };
    log(effect.type);
    expectPrinted('timer');
  });

  it('ConfirmationTransition (step.ts)', async () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: {} },
      summary: 'Deploy',
      requester: 'U1',
    };
    const c = createConfirmation(request, { id: 'c1', now: 0 });
    const t: ConfirmationTransition = confirmStep(c, { type: 'prompt' }, 0, confirmRules());
    log(t.next.state, t.effects.length);
    expectPrinted('prompted 2');
  });

  it('ConfirmRules (step.ts)', async () => {
    const rules: ConfirmRules = confirmRules({ unrecognised: 'reprompt' });
    log(rules.unrecognised, rules.admit.maxQueued);
    expectPrinted('reprompt 8');
  });

  it('ConfirmRulesOptions (step.ts)', async () => {
    const options: ConfirmRulesOptions = { whenPending: 'supersede', afterDecisionMs: 0 };
    log(options.whenPending);
    expectPrinted('supersede');
  });

  it('confirmRules (step.ts)', async () => {
    const rules = confirmRules({ whenPending: 'reject', maxReprompts: 1 });
    log(rules.admit.whenPending, rules.maxReprompts, rules.afterDecisionMs);
    expectPrinted('reject 1 30000');
  });

  it('NewConfirmation (step.ts)', async () => {
    const how: NewConfirmation = {
      id: 'cfm_1',
      now: Date.UTC(2026, 0, 1),
      timeoutMs: 120_000,
      approvers: 'any',
    };
    log(how.approvers);
    expectPrinted('any');
  });

  it('createConfirmation (step.ts)', async () => {
    const rules = confirmRules();
    const request = {
      sessionKey: 'telegram:42',
      action: { name: 'sql.drop', args: { table: 'customers' } },
      summary: 'DROP TABLE customers',
      requester: 'alice',
    };
    let c = createConfirmation(request, { id: 'c1', now: 1_000 });
    const prompted = confirmStep(c, { type: 'prompt' }, 1_000, rules);
    log(prompted.effects.map((effect) => effect.type));
    expectPrinted("[ 'timer', 'write_then_send' ]");
    c = confirmStep(prompted.next, { type: 'send_begun', sends: 1, seq: 1 }, 1_010, rules).next;
    const delivered = { type: 'delivered', sends: 1, seq: 2, kind: 'first', order: undefined } as const;
    c = confirmStep(c, delivered, 1_020, rules).next;
    const reply = {
      type: 'reply',
      text: '确认',
      senderId: 'alice',
      arrival: 3,
      order: undefined,
      bot: false,
    } as const;
    const answered = confirmStep(c, reply, 1_030, rules);
    log(answered.next.state, answered.effects[0]?.type);
    expectPrinted('done decided');
  });

  it('AnswerRules (internal/answers.ts)', async () => {
    const rules: AnswerRules = confirmRules();
    log(rules.unrecognised, rules.maxReprompts);
    expectPrinted('cancel 2');
  });

  it('ConfirmationAnswer (internal/answers.ts)', async () => {
    const deadline: ConfirmationAnswer = { type: 'deadline' };
    log(deadline.type);
    expectPrinted('deadline');
  });

  it('DecisionDetails (internal/answers.ts)', async () => {
    const details: DecisionDetails = { decidedBy: 'alice', reply: '确认' };
    log(details.decidedBy);
    expectPrinted('alice');
  });

  it('ConfirmationVerdict (internal/answers.ts)', async () => {
    const verdict: ConfirmationVerdict = { kind: 'ignore', code: 'before_delivery', tooEarly: true };
    log(verdict.kind);
    expectPrinted('ignore');
  });

  it('AdmissionView (internal/step-admit.ts)', async () => {
    const view: AdmissionView = {
      aborted: false,
      held: 0,
      closed: false,
      multiStep: false,
      grant: 'unread',
      active: false,
      queued: 0,
    };
    log(view.grant);
    expectPrinted('unread');
  });

  it('AdmissionRules (internal/step-admit.ts)', async () => {
    const admit: AdmissionRules = confirmRules({ whenPending: 'reject' }).admit;
    log(admit.whenPending, admit.maxPending);
    expectPrinted('reject 10000');
  });

  it('ConfirmationAdmission (internal/step-admit.ts)', async () => {
    const admission: ConfirmationAdmission = { kind: 'queue' };
    log(admission.kind);
    expectPrinted('queue');
  });

  it('UsableDecision (step.ts)', async () => {
    const used = (decision: UsableDecision): boolean => decision.usedAt !== undefined;
    log(typeof used);
    expectPrinted('function');
  });

  it('authorizeStep (step.ts)', async () => {
    const action = { name: 'deploy', args: { env: 'prod' } };
    const decision: ConfirmDecision = {
      id: 'c1',
      sessionKey: 'chat:1',
      summary: 'Deploy',
      requester: 'alice',
      outcome: 'confirmed',
      reason: 'reply',
      action: { ...action, digest: await digestAction(action) },
      requestedAt: 0,
      decidedAt: 10,
    };
    const first = authorizeStep(decision, await digestAction(action), 20);
    log(first.ok, first.ok && first.record.usedAt);
    expectPrinted('true 20');
    const second = first.ok ? authorizeStep(first.record, decision.action.digest, 30) : first;
    log(second.ok || second.code);
    expectPrinted('already_used');
  });

  it('PromptShown (internal/confirmation.ts)', async () => {
    const shown: PromptShown = { text: 'Reply 确认 to run DROP TABLE t', card: undefined };
    log(shown.text.length > 0);
    expectPrinted('true');
  });

  it('consentFactsOf (consent.ts)', async () => {
    const decision: ConfirmDecision = {
      id: 'cfm_1',
      sessionKey: 'feishu:oc_1',
      summary: 'drop',
      requester: 'ou_a',
      action: { name: 'sql.delete', args: {}, digest: 'ab'.repeat(32) },
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'ou_a',
      reply: '确认',
      requestedAt: 0,
      decidedAt: 1,
    };
    log(
      consentFactsOf(decision)
        .map((fact) => fact.kind)
        .join(' '),
    );
    expectPrinted('answer decision');
  });

  it('promptedFact (consent.ts)', async () => {
    const fact = promptedFact(
      { id: 'cfm_1', sessionKey: 'feishu:oc_1', step: 0, reprompt: false, text: 'OK?' },
      1,
    );
    log(fact.kind, fact.kind === 'prompt_delivered' && fact.textDigest?.length);
    expectPrinted('prompt_delivered 64');
  });
  it('CONFIRMATION_RECORD (records.ts)', async () => {
    const kernel = createKernel({ store: createMemoryStore() });
    const pending = await kernel.list('confirm:pending:', CONFIRMATION_RECORD);
    log(CONFIRMATION_RECORD.kind, pending.records.length);
    expectPrinted('parley.confirm.pending 0');
  });

  it('DECISION_RECORD (records.ts)', async () => {
    const kernel = createKernel({ store: createMemoryStore() });
    const decision = await kernel.read('confirm:decision:c1', DECISION_RECORD);
    log(DECISION_RECORD.kind, decision);
    expectPrinted('parley.confirm.decision undefined');
  });

  it('DecisionRecord (internal/records.ts)', async () => {
    function decidedBy(record: DecisionRecord): string {
      return `${record.outcome} by ${record.decidedBy ?? 'nobody'}${record.usedAt === undefined ? '' : ' (used)'}`;
    }
  });
});

describe('allowance.ts', () => {
  it('StandingAllowance', () => {
    const allowance: StandingAllowance = {
      grantedBy: 'U1',
      grantedAt: 0,
      decisionId: 'c1',
      approvers: 'requester',
      requester: 'U1',
    };
  });

  it('AllowanceView', () => {
    const view: AllowanceView = {
      id: 'c1',
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy' },
      approvers: 'any',
      requester: 'U1',
    };
    log(allowanceScope(view) === allowanceScope({ ...view, id: 'c2' }));
    expectPrinted('true');
  });

  it('allowanceScope', () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: { v: 1 } },
      summary: 'Deploy',
      requester: 'U1',
    };
    const first = createConfirmation(request, { id: 'c1', now: 0 }).record;
    const again = createConfirmation(
      { ...request, action: { name: 'deploy', args: { v: 2 } } },
      { id: 'c2', now: 0 },
    ).record;
    log(allowanceScope(first) === allowanceScope(again));
    expectPrinted('true');
  });

  it('allowanceOf', () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: {} },
      summary: 'Deploy',
      requester: 'U1',
    };
    const { record } = createConfirmation(request, { id: 'c1', now: 0 });
    const decision = {
      id: 'c1',
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'U1',
      decidedAt: 5,
      allowUntil: 60_005,
    } as const;
    log(allowanceOf(decision, record)?.grantedBy);
    expectPrinted('U1');
  });

  it('allowanceCovers', () => {
    const request = {
      sessionKey: 'slack:T1:C1',
      action: { name: 'deploy', args: {} },
      summary: 'Deploy',
      requester: 'U1',
    };
    const { record } = createConfirmation(request, { id: 'c2', now: 0 });
    log(allowanceCovers(record, 'U1'), allowanceCovers(record, 'U2'), allowanceCovers(record, undefined));
    expectPrinted('U1 null null');
  });
});
