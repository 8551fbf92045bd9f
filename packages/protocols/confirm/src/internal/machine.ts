import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type {
  Confirmation,
  ConfirmationEffect,
  ConfirmationEvent,
  ConfirmRules,
  ConfirmationAnswer,
  ConfirmationTransition,
  DecisionDetails,
} from './confirmation.js';
import type { ConfirmationRecord } from './records.js';
import { summaryPages } from './render.js';
import { step } from './step.js';
import { admit, adopt } from './step-admit.js';
import { afterwards, decidedInTime, remembered, toDecisionOf } from './step-decided.js';

// A confirmation as one pure step: every change of its state is made here and nowhere else; the
// runner (runner.ts) feeds it events and performs the effects it returns, in order. Its rules live
// in the pure files it calls: step.ts (answers), step-admit.ts, step-decided.ts.

/** How long after the deadline a gate following another gate's confirmation times it out itself. */
export const FOLLOWER_GRACE_MS = 1_000;

/**
 * The confirm gate's rules as one pure function: applies an event to a confirmation and returns
 * the next state and the effects to perform, in order. It never awaits, reads a clock or touches a
 * store: the gate's runner feeds it every event and performs what it returns, and any other host
 * (a durable engine, a test) can do the same and decide exactly as a gate would. The deadline is
 * checked first, then who may answer, then the order rule (an answer that reached the host before
 * the prompt's send began never counts), then what the answer says.
 *
 * @example
 * ```ts
 * import { confirmRules, confirmStep, createConfirmation } from '@parley/confirm';
 *
 * const rules = confirmRules();
 * const request = { sessionKey: 'telegram:42', action: { name: 'sql.drop', args: { table: 't' } }, summary: 'DROP TABLE t', requester: 'alice' };
 * let c = createConfirmation(request, { id: 'c1', now: 0 });
 * c = confirmStep(c, { type: 'prompt' }, 0, rules).next;
 * const early = { type: 'reply', text: 'yes', senderId: 'alice', arrival: 1, order: undefined, bot: false, lateChecked: true } as const;
 * c = confirmStep(c, { type: 'send_begun', sends: 1, seq: 2 }, 5, rules).next;
 * console.log(confirmStep(c, early, 6, rules).result); // { kind: 'ignore', code: 'before_delivery', tooEarly: true }
 * ```
 */
export function confirmStep(
  c: Confirmation,
  event: ConfirmationEvent,
  now: number,
  rules: ConfirmRules,
): ConfirmationTransition {
  if (c.state === 'done') return event.type === 'reply' ? afterwards(c, event, now, rules) : same(c);
  switch (event.type) {
    case 'reply':
    case 'card':
    case 'deadline':
      return answer(c, event, now, rules);
    case 'admit': {
      const admission = admit(event.view, rules.admit);
      if (admission.kind === 'queue') return { next: { ...c, state: 'queued' }, effects: [], admission };
      if (admission.kind !== 'settle') return { next: c, effects: [], admission };
      const extra = admission.decidedBy === undefined ? undefined : { decidedBy: admission.decidedBy };
      const how = { record: admission.record };
      return { ...decide(c, admission.outcome, admission.reason, extra, now, rules, how), admission };
    }
    case 'prompt': {
      const record = {
        ...unsent(c.record),
        firstPromptedAt: now,
        promptedAt: now,
        expiresAt: now + c.record.timeoutMs,
      };
      const next = {
        ...c,
        record,
        state: 'prompted' as const,
        ...notSent,
        sends: c.sends + 1,
        windowOver: false,
      };
      const effects: ConfirmationEffect[] = [
        { type: 'timer', delayMs: c.record.timeoutMs },
        { type: 'write_then_send', kind: 'first', sends: next.sends },
      ];
      return { next, effects };
    }
    case 'send_begun':
      return event.sends === c.sends ? { next: { ...c, sentSeq: event.seq }, effects: [] } : same(c);
    case 'delivered': {
      if (event.sends !== c.sends) return same(c); // a newer prompt went out meanwhile
      // Answers that arrive from now on count; those that arrived in flight count when the
      // platform's order puts them after it. The first prompt's delivery starts the whole window.
      const first = event.kind === 'first';
      const { order: _order, ...rest } = c.record;
      const record = {
        ...rest,
        deliveredAt: now,
        ...(event.order === undefined ? {} : { order: event.order }),
        ...(first ? { expiresAt: now + c.record.timeoutMs } : {}),
      };
      const next = { ...c, record, deliveredSeq: event.seq, seen: true };
      const effects: ConfirmationEffect[] = first ? [{ type: 'timer', delayMs: c.record.timeoutMs }] : [];
      // Announced before held answers wake: a ledger hears of the prompt before their decision.
      effects.push(
        { type: 'write' },
        {
          type: 'announce',
          step: record.step,
          reprompt: event.kind === 'reprompt',
          ...(event.shown === undefined ? {} : { shown: event.shown }),
          ...(event.order === undefined ? {} : { order: event.order }),
        },
        { type: 'wake' },
      );
      return { next: first ? { ...next, windowOver: false } : next, effects };
    }
    case 'send_failed':
      if (event.sends !== c.sends) return same(c);
      // The platform refused it (or its text failed): nobody saw this prompt.
      return decide({ ...c, sentSeq: null }, 'aborted', 'prompt_failed', undefined, now, rules, {});
    case 'written':
      return { next: { ...c, record: { ...c.record, rev: event.rev } }, effects: [] };
    case 'stored':
      return adoptStored(c, event.record, event.seq, now);
    case 'timed':
      return timed(c, now);
    case 'window_over':
      // From now on no answer counts, here or anywhere. A follower settles a little after the
      // owner would, so the owner records and announces the timeout while it lives.
      if (c.remote) return { next: { ...c, windowOver: true }, effects: [{ type: 'grace' }] };
      return answer({ ...c, windowOver: true }, { type: 'deadline' }, now, rules);
    case 'grace_over':
      return answer(c, { type: 'deadline' }, now, rules);
    case 'settle':
      return decide(c, event.outcome, event.reason, event.extra, now, rules, {
        record: event.record,
        adopt: event.adopt,
      });
    case 'drop': {
      const after = remembered(c, event.decision?.outcome, event.decision?.reason, now, rules);
      return { next: { ...c, state: 'done', after }, effects: [{ type: 'dropped' }] };
    }
  }
}

const notSent = { sentSeq: null, deliveredSeq: null } as const;

/** The record of a prompt not sent yet: nothing that arrives now counts for it. */
function unsent(record: ConfirmationRecord): ConfirmationRecord {
  const { deliveredAt: _delivered, order: _order, ...rest } = record;
  return rest;
}

function same(c: Confirmation): ConfirmationTransition {
  return { next: c, effects: [] };
}

/** What the rules read of a confirmation. */
function viewOf(c: Confirmation) {
  return {
    requester: c.record.requester,
    approvers: c.record.approvers,
    steps: c.record.steps ?? undefined,
    step: c.record.step,
    reprompts: c.record.reprompts,
    sentSeq: c.sentSeq ?? undefined,
    deliveredSeq: c.deliveredSeq ?? undefined,
    order: c.record.order,
    prompted: c.state === 'prompted',
    expired: c.windowOver,
    orphaned: c.restored && !c.remote && !c.resumable,
  };
}

/** A reply, a click or the deadline, judged by the answer rules (`step`). */
function answer(
  c: Confirmation,
  event: ConfirmationAnswer,
  now: number,
  rules: ConfirmRules,
): ConfirmationTransition {
  const result = step(viewOf(c), event, now, rules);
  switch (result.kind) {
    case 'expire':
      return { ...decide(c, 'timed_out', 'timeout', undefined, now, rules, { notice: 'timedOut' }), result };
    case 'settle':
      return {
        ...decide(c, result.outcome, result.reason, result.extra, now, rules, { notice: result.notice }),
        result,
      };
    case 'next_step':
    case 'reprompt': {
      const kind = result.kind === 'next_step' ? 'step' : 'reprompt';
      const record = {
        ...unsent(c.record),
        step: c.record.step + (kind === 'step' ? 1 : 0),
        reprompts: c.record.reprompts + (kind === 'reprompt' ? 1 : 0),
        promptedAt: now,
      };
      const next = { ...c, record, ...notSent, sends: c.sends + 1 };
      return { next, effects: [{ type: 'write_then_send', kind, sends: next.sends }], result };
    }
    case 'page': {
      const page = summaryPages(c.record.action, c.record.summary)[c.pages];
      if (page === undefined) return { next: c, effects: [], result }; // past the last page, none
      return {
        next: { ...c, pages: c.pages + 1 },
        effects: [{ type: 'page', index: c.pages, text: page }],
        result,
      };
    }
    case 'ignore': {
      // Tell the person, once per prompt, that an answer came too early and did not count.
      const prompt = `${c.record.step}.${c.record.reprompts}`;
      if (result.tooEarly !== true || c.toldEarly === prompt) return { next: c, effects: [], result };
      return { next: { ...c, toldEarly: prompt }, effects: [{ type: 'notice', name: 'tooEarly' }], result };
    }
    default:
      return { next: c, effects: [], result };
  }
}

/**
 * The one way a confirmation ends: its decision, made here (or another gate's, adopted), to be
 * recorded first-writer-wins by the runner; settling twice does nothing (`done`).
 */
function decide(
  c: Confirmation,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  extra: DecisionDetails | undefined,
  now: number,
  rules: ConfirmRules,
  how: {
    readonly record?: boolean | undefined;
    readonly adopt?: ConfirmDecision | undefined;
    readonly notice?: 'timedOut' | 'expired' | undefined;
  },
): ConfirmationTransition {
  // Never 'done' here: a settled confirmation takes no event.
  const state = c.state as 'new' | 'queued' | 'prompted';
  const decision =
    how.adopt ?? toDecisionOf({ ...c.record, state, windowOver: c.windowOver }, outcome, reason, extra, now);
  const counted = decidedInTime(decision) ? decision.outcome : 'timed_out';
  const effect: ConfirmationEffect = {
    type: 'decided',
    decision,
    record: how.record !== false && how.adopt === undefined,
    adopted: how.adopt !== undefined,
    wasStored: c.state === 'prompted',
    notice: how.notice,
  };
  const after = remembered(c, counted, decision.reason, now, rules);
  return { next: { ...c, state: 'done', after }, effects: [effect] };
}

/** Times the window by the stored deadline: what is left of it (over at once when it passed). */
function timed(c: Confirmation, now: number): ConfirmationTransition {
  const delayMs = Math.max(0, c.record.expiresAt - now);
  return { next: { ...c, windowOver: delayMs === 0 }, effects: [{ type: 'timer', delayMs }] };
}

/**
 * Takes what a newer stored version of its record changes (the pure `adopt` rule): a new prompt
 * went out from another gate (unanswerable until its delivery is known), a delivery is learnt
 * now, the deadline moved. A record is only ever replaced by a newer version of itself.
 */
function adoptStored(
  c: Confirmation,
  stored: ConfirmationRecord,
  seq: number,
  now: number,
): ConfirmationTransition {
  const adoption = adopt({ ...c.record, delivered: c.deliveredSeq !== null }, stored);
  if (adoption === undefined) return same(c);
  let next: Confirmation = { ...c, record: { ...c.record, rev: stored.rev } };
  if (adoption.prompt !== undefined) {
    // Sent by another gate, at a moment this one did not see.
    next = {
      ...next,
      record: { ...unsent(next.record), ...adoption.prompt },
      sentSeq: 0,
      deliveredSeq: null,
    };
  }
  if (adoption.delivered !== undefined) {
    const { deliveredAt, order } = adoption.delivered;
    const record = { ...unsent(next.record), deliveredAt, ...(order === undefined ? {} : { order }) };
    next = { ...next, record, deliveredSeq: seq, seen: true };
  }
  const effects: ConfirmationEffect[] = [];
  if (adoption.expiresAt !== undefined) {
    const moved = timed({ ...next, record: { ...next.record, expiresAt: adoption.expiresAt } }, now);
    next = moved.next;
    effects.push(...moved.effects);
  }
  if (next.deliveredSeq !== null) effects.push({ type: 'wake' }); // answers held while it was in flight
  return { next, effects };
}
