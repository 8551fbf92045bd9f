import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type {
  Confirmation,
  ConfirmationEffect,
  ConfirmationEvent,
  ConfirmRules,
  ConfirmationAnswer,
  ConfirmationTransition,
  ConfirmationVerdict,
  DecisionDetails,
} from './confirmation.js';
import type { ConfirmationRecord } from './records.js';
import { type Draft, recordDraft, stateDraft } from './draft.js';
import { summaryPages } from './render.js';
import { step, viewOf } from './step.js';
import { admit } from './step-admit.js';
import { adoptStored, timeBy } from './machine-adopt.js';
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
      if (admission.kind === 'queue') {
        const next = stateDraft(c);
        next.state = 'queued';
        return { next, effects: NONE, admission };
      }
      if (admission.kind !== 'settle') return { next: c, effects: NONE, admission };
      const extra = admission.decidedBy === undefined ? undefined : { decidedBy: admission.decidedBy };
      const how = { record: admission.record };
      const done = decide(c, admission.outcome, admission.reason, extra, now, rules, how);
      return { next: done.next, effects: done.effects, admission };
    }
    case 'prompt': {
      const r = recordDraft(c.record, false);
      r.firstPromptedAt = now;
      r.promptedAt = now;
      r.expiresAt = now + c.record.timeoutMs;
      const next = unsentState(c, r);
      next.state = 'prompted';
      next.windowOver = false;
      const effects: ConfirmationEffect[] = [
        { type: 'timer', delayMs: c.record.timeoutMs },
        { type: 'write_then_send', kind: 'first', sends: next.sends },
      ];
      return { next, effects };
    }
    case 'send_begun': {
      if (event.sends !== c.sends) return same(c);
      const next = stateDraft(c);
      next.sentSeq = event.seq;
      return { next, effects: NONE };
    }
    case 'delivered':
      return event.sends === c.sends ? delivered(c, event, now) : same(c); // else a newer prompt went out meanwhile
    case 'send_failed': {
      if (event.sends !== c.sends) return same(c);
      // The platform refused it (or its text failed): nobody saw this prompt.
      const unseen = stateDraft(c);
      unseen.sentSeq = null;
      return decide(unseen, 'aborted', 'prompt_failed', undefined, now, rules, {});
    }
    case 'written': {
      const r = recordDraft(c.record, true);
      r.rev = event.rev;
      const next = stateDraft(c);
      next.record = r;
      return { next, effects: NONE };
    }
    case 'stored':
      return adoptStored(c, event.record, event.seq, now) ?? same(c);
    case 'timed': {
      const next = stateDraft(c);
      return { next, effects: [timeBy(next, now)] };
    }
    case 'window_over': {
      // From now on no answer counts, here or anywhere. A follower settles a little after the
      // owner would, so the owner records and announces the timeout while it lives.
      const over = stateDraft(c);
      over.windowOver = true;
      if (c.remote) return { next: over, effects: [{ type: 'grace' }] };
      return answer(over, { type: 'deadline' }, now, rules);
    }
    case 'grace_over':
      return answer(c, { type: 'deadline' }, now, rules);
    case 'settle':
      return decide(c, event.outcome, event.reason, event.extra, now, rules, {
        record: event.record,
        adopt: event.adopt,
      });
    case 'drop': {
      const next = stateDraft(c);
      next.state = 'done';
      next.after = remembered(c, event.decision?.outcome, event.decision?.reason, now, rules);
      return { next, effects: [{ type: 'dropped' }] };
    }
  }
}

/**
 * Whether the step's rules for `event` do not depend on the time: a record written, a send begun.
 * The runner reads no clock for them (`now` is not read).
 */
export function timeless(event: ConfirmationEvent): boolean {
  return event.type === 'written' || event.type === 'send_begun';
}

/** No effects: one frozen list for every transition without any. */
const NONE: readonly ConfirmationEffect[] = Object.freeze([]);

function same(c: Confirmation): ConfirmationTransition {
  return { next: c, effects: NONE };
}

/**
 * A new state of `c` around `r`, the record of its next prompt (one not sent yet: nothing that
 * arrives now counts for it).
 */
function unsentState(c: Confirmation, r: ConfirmationRecord): Draft<Confirmation> {
  const next = stateDraft(c);
  next.record = r;
  next.sentSeq = null;
  next.deliveredSeq = null;
  next.sends = c.sends + 1;
  return next;
}

/**
 * The current prompt's send resolved: answers that arrive from now on count; those that arrived in
 * flight count when the platform's order puts them after it. The first prompt's delivery starts
 * the whole window.
 */
function delivered(
  c: Confirmation,
  event: Extract<ConfirmationEvent, { type: 'delivered' }>,
  now: number,
): ConfirmationTransition {
  const first = event.kind === 'first';
  const r = recordDraft(c.record, false);
  r.deliveredAt = now;
  if (event.order !== undefined) r.order = event.order;
  if (first) r.expiresAt = now + c.record.timeoutMs;
  const next = stateDraft(c);
  next.record = r;
  next.deliveredSeq = event.seq;
  next.seen = true;
  if (first) next.windowOver = false;
  const announce: Draft<Extract<ConfirmationEffect, { type: 'announce' }>> = {
    type: 'announce',
    step: r.step,
    reprompt: event.kind === 'reprompt',
  };
  if (event.shown !== undefined) announce.shown = event.shown;
  if (event.order !== undefined) announce.order = event.order;
  // Announced before held answers wake: a ledger hears of the prompt before their decision.
  const effects: ConfirmationEffect[] = first
    ? [{ type: 'timer', delayMs: c.record.timeoutMs }, WRITE, announce, WAKE]
    : [WRITE, announce, WAKE];
  return { next, effects };
}

const WRITE: ConfirmationEffect = Object.freeze({ type: 'write' });
const WAKE: ConfirmationEffect = Object.freeze({ type: 'wake' });

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
      return judged(decide(c, 'timed_out', 'timeout', undefined, now, rules, { notice: 'timedOut' }), result);
    case 'settle':
      return judged(
        decide(c, result.outcome, result.reason, result.extra, now, rules, { notice: result.notice }),
        result,
      );
    case 'next_step':
    case 'reprompt': {
      const kind = result.kind === 'next_step' ? 'step' : 'reprompt';
      const r = recordDraft(c.record, false);
      r.step = c.record.step + (kind === 'step' ? 1 : 0);
      r.reprompts = c.record.reprompts + (kind === 'reprompt' ? 1 : 0);
      r.promptedAt = now;
      const next = unsentState(c, r);
      return { next, effects: [{ type: 'write_then_send', kind, sends: next.sends }], result };
    }
    case 'page': {
      const page = summaryPages(c.record.action, c.record.summary)[c.pages];
      if (page === undefined) return { next: c, effects: NONE, result }; // past the last page, none
      const next = stateDraft(c);
      next.pages = c.pages + 1;
      return { next, effects: [{ type: 'page', index: c.pages, text: page }], result };
    }
    case 'ignore': {
      // Tell the person, once per prompt, that an answer came too early and did not count.
      const prompt = `${c.record.step}.${c.record.reprompts}`;
      if (result.tooEarly !== true || c.toldEarly === prompt) return { next: c, effects: NONE, result };
      const next = stateDraft(c);
      next.toldEarly = prompt;
      return { next, effects: [{ type: 'notice', name: 'tooEarly' }], result };
    }
    default:
      return { next: c, effects: NONE, result };
  }
}

/** A transition with what the answer rules made of the reply or click behind it. */
function judged(done: ConfirmationTransition, result: ConfirmationVerdict): ConfirmationTransition {
  return { next: done.next, effects: done.effects, result };
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
  const decision = how.adopt ?? toDecisionOf(c, outcome, reason, extra, now);
  const counted = decidedInTime(decision) ? decision.outcome : 'timed_out';
  const effect: ConfirmationEffect = {
    type: 'decided',
    decision,
    record: how.record !== false && how.adopt === undefined,
    adopted: how.adopt !== undefined,
    wasStored: c.state === 'prompted',
    notice: how.notice,
  };
  const next = stateDraft(c);
  next.state = 'done';
  next.after = remembered(c, counted, decision.reason, now, rules);
  return { next, effects: [effect] };
}
