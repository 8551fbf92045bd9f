import type { OutboundCard, PlatformOrder } from '@parley/bus';
import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { AnswerRules, ConfirmationAnswer, ConfirmationVerdict, DecisionDetails } from './answers.js';

export type { AnswerRules, ConfirmationAnswer, ConfirmationVerdict, DecisionDetails } from './answers.js';
import type { ConfirmationRecord } from './records.js';
import type { ConfirmationAdmission, AdmissionRules, AdmissionView } from './step-admit.js';

// The data of the confirm step (machine.ts): a confirmation as plain JSON, the events that happen
// to it and the effects the runner performs for it.

/**
 * One confirmation as plain JSON: its record (what a gate stores; `rev` 0 while not stored) and
 * what only the process running it knows — the arrival numbers of its prompt's send and
 * delivery, whether the person saw a prompt, its after-decision memory. {@link confirmStep} is the
 * only thing that changes it.
 *
 * @example
 * ```ts
 * import { type Confirmation, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'U1' };
 * const c: Confirmation = createConfirmation(request, { id: 'c1', now: 0 });
 * console.log(c.state, c.record.rev, JSON.parse(JSON.stringify(c)).record.id); // new 0 c1
 * ```
 */
export interface Confirmation {
  readonly record: ConfirmationRecord;
  readonly state: 'new' | 'queued' | 'prompted' | 'done';
  /** Loaded from the store (after a restart, or another replica's). */
  readonly restored: boolean;
  /** Another live replica owns it: no resume handler, no notices here. */
  readonly remote: boolean;
  /** A resume handler exists for its action (a restored one without is answered "expired"). */
  readonly resumable: boolean;
  /** The arrival number at which the current prompt's send began (`null`: not begun). */
  readonly sentSeq: number | null;
  /** The arrival number at which the current prompt was known delivered (`null`: in flight). */
  readonly deliveredSeq: number | null;
  /** A prompt of it was delivered, so answers to it are absorbed for a while after the decision. */
  readonly seen: boolean;
  /** The prompt (`step.reprompts`) whose too-early notice was sent: one notice per prompt. */
  readonly toldEarly: string | null;
  /** The answering window is over, as this process's timers measure it. */
  readonly windowOver: boolean;
  /** Prompts sent, so the result of an earlier prompt's send is recognised as stale. */
  readonly sends: number;
  /** Pages of the summary sent (`summaryPaging`). */
  readonly pages: number;
  /**
   * Once decided, while its approvers' late answers are absorbed (`afterDecisionMs`, only when the
   * person saw a prompt of it): until when, the outcome they are told (`null`: unknown here), and
   * whether they were told already (once).
   */
  readonly after: {
    readonly until: number;
    readonly outcome: ConfirmOutcome | null;
    readonly told: boolean;
  } | null;
}

/**
 * What happens to a confirmation: a request to admit or prompt, its prompt's send beginning,
 * being delivered or failing, a reply or card click (each with the arrival number the host gave
 * it, and the platform's order when the adapter gives one), the window's timer, a stored version
 * read from another replica, an abort or another gate's decision.
 *
 * @example
 * ```ts
 * import type { ConfirmationEvent } from '@parley/confirm';
 *
 * const reply: ConfirmationEvent = { type: 'reply', text: 'yes', senderId: 'U1', arrival: 7, order: undefined, bot: false };
 * console.log(reply.type); // reply
 * ```
 */
export type ConfirmationEvent =
  | ConfirmationAnswer
  /** A new request: admitted, queued or settled at once by the admission rule (`admit`). */
  | { readonly type: 'admit'; readonly view: AdmissionView }
  /** Prompt it: it becomes its session's active confirmation. */
  | { readonly type: 'prompt' }
  | { readonly type: 'send_begun'; readonly sends: number; readonly seq: number }
  | {
      readonly type: 'delivered';
      readonly sends: number;
      readonly seq: number;
      readonly kind: 'first' | 'step' | 'reprompt';
      readonly order: PlatformOrder | undefined;
      /** What the delivered prompt showed, passed on to the `announce` effect. */
      readonly shown?: PromptShown;
    }
  /** The send of prompt `sends` was refused, or its text could not be made. */
  | { readonly type: 'send_failed'; readonly sends: number }
  /** Its record was written with this `rev`. */
  | { readonly type: 'written'; readonly rev: number }
  /** A stored version of its record was read (another gate's write, or one this gate lost to). */
  | { readonly type: 'stored'; readonly record: ConfirmationRecord; readonly seq: number }
  /** Its answering window is timed from now (loaded, or a stored deadline moved). */
  | { readonly type: 'timed' }
  /** The window's timer fired; a follower's second timer (`grace`) lets the owner go first. */
  | { readonly type: 'window_over' }
  | { readonly type: 'grace_over' }
  /** It ends without an answer (abort, supersede, close, a full gate), or with another gate's decision. */
  | {
      readonly type: 'settle';
      readonly outcome: ConfirmOutcome;
      readonly reason: DecisionReason;
      readonly extra?: DecisionDetails | undefined;
      /** `false`: nothing is recorded. */
      readonly record?: boolean;
      /** Another gate's recorded decision, taken as is. */
      readonly adopt?: ConfirmDecision;
    }
  /** Another gate's confirmation stops being followed here (decided or gone there). */
  | { readonly type: 'drop'; readonly decision?: ConfirmDecision | undefined };

/**
 * What the host does for a confirmation, in order: write its record (then send the prompt, when
 * the write was not lost), time its window, judge held answers again, announce a delivered
 * prompt, send a notice or a summary page, record its decision, tell a late answerer what was
 * decided.
 *
 * @example
 * ```ts
 * import type { ConfirmationEffect } from '@parley/confirm';
 *
 * const effect: ConfirmationEffect = { type: 'timer', delayMs: 60_000 };
 * console.log(effect.type); // timer
 * ```
 */
export type ConfirmationEffect =
  /** Write the record, then send prompt `sends` when the write was not lost. */
  | { readonly type: 'write_then_send'; readonly kind: 'first' | 'step' | 'reprompt'; readonly sends: number }
  | { readonly type: 'write' }
  /** Time the answering window: `delayMs` from now (0: it is over). */
  | { readonly type: 'timer'; readonly delayMs: number }
  /** A follower's grace after the deadline, so the owner records the timeout while it lives. */
  | { readonly type: 'grace' }
  /** Judge again the answers held while the prompt was in flight. */
  | { readonly type: 'wake' }
  /** Announce `prompted` once the delivery is written. */
  | {
      readonly type: 'announce';
      readonly step: number;
      readonly reprompt: boolean;
      /** What the prompt showed and the platform's place for it, when the host gave them. */
      readonly shown?: PromptShown;
      readonly order?: PlatformOrder;
    }
  | { readonly type: 'notice'; readonly name: 'tooEarly' }
  | { readonly type: 'page'; readonly index: number; readonly text: string }
  /**
   * It is decided: record `decision` (unless `record` is false) and tell the session `notice`
   * when this gate's decision is the one recorded.
   */
  | {
      readonly type: 'decided';
      readonly decision: ConfirmDecision;
      readonly record: boolean;
      readonly adopted: boolean;
      readonly wasStored: boolean;
      readonly notice: 'timedOut' | 'expired' | undefined;
    }
  /** Followed no more. */
  | { readonly type: 'dropped' }
  /** Tell the person who answered after the decision what was decided ("already confirmed", …). */
  | { readonly type: 'late'; readonly outcome: ConfirmOutcome }
  /** Its after-decision memory is over. */
  | { readonly type: 'forget' };

/**
 * What {@link confirmStep} returns: the next state, the effects to perform in order, and for a
 * reply, a click or an admission what the rules made of it.
 *
 * @example
 * ```ts
 * import { type ConfirmationTransition, confirmRules, confirmStep, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'U1' };
 * const c = createConfirmation(request, { id: 'c1', now: 0 });
 * const t: ConfirmationTransition = confirmStep(c, { type: 'prompt' }, 0, confirmRules());
 * console.log(t.next.state, t.effects.length); // prompted 2
 * ```
 */
export interface ConfirmationTransition {
  readonly next: Confirmation;
  readonly effects: readonly ConfirmationEffect[];
  readonly result?: ConfirmationVerdict;
  /** For `admit`: what the admission rule decided. */
  readonly admission?: ConfirmationAdmission;
}

/**
 * The settings {@link confirmStep} reads: the reply vocabulary, what an unrecognised answer does,
 * standing allowances, summary paging, admission limits and the after-decision window. Made by
 * {@link confirmRules} from a gate's options.
 *
 * @example
 * ```ts
 * import { type ConfirmRules, confirmRules } from '@parley/confirm';
 *
 * const rules: ConfirmRules = confirmRules({ unrecognised: 'reprompt' });
 * console.log(rules.unrecognised, rules.admit.maxQueued); // reprompt 8
 * ```
 */
export interface ConfirmRules extends AnswerRules {
  readonly admit: AdmissionRules;
  /** How long a decided confirmation absorbs its approvers' late answers (0: not at all). */
  readonly afterDecisionMs: number;
}

/** A new confirmation around a record: a new request's (`rev` 0), or one read from the store. */
export function confirmationOf(
  record: ConfirmationRecord,
  how: Pick<Confirmation, 'restored' | 'remote' | 'resumable' | 'state' | 'deliveredSeq'>,
): Confirmation {
  // A stored one was sent at a moment this gate did not see: every arrival counts as after its send began.
  // Field by field, in the order of every state the step makes (draft.ts).
  return {
    record,
    state: how.state,
    restored: how.restored,
    remote: how.remote,
    resumable: how.resumable,
    sentSeq: record.rev > 0 ? 0 : null,
    deliveredSeq: how.deliveredSeq,
    seen: record.deliveredAt !== undefined,
    toldEarly: null,
    windowOver: false,
    sends: 0,
    pages: 0,
    after: null,
  };
}

/**
 * What a delivered prompt showed the person: its exact text, and the card when one was sent.
 *
 * @example
 * ```ts
 * import type { PromptShown } from '@parley/confirm';
 *
 * const shown: PromptShown = { text: 'Reply 确认 to run DROP TABLE t', card: undefined };
 * console.log(shown.text.length > 0); // true
 * ```
 */
export interface PromptShown {
  readonly text: string;
  readonly card: OutboundCard | undefined;
  /** The platform's id of the prompt message, when the adapter's send receipt gave one. */
  readonly messageId?: string | undefined;
}
