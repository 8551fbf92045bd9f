import type { PlatformOrder } from '@parley/bus';
import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { CARD_REFUSAL_CODES, IGNORED_REPLY_CODES } from '../refusal-codes.js';
import type { Vocabulary } from '../vocabulary.js';

// The data of the answer rules (step.ts): what may answer a confirmation, the settings the rules
// read, and what they make of an answer.

/**
 * The gate settings the answer rules read: the reply vocabulary, what an unrecognised answer
 * does, standing allowances and summary paging. Part of {@link ConfirmRules}.
 *
 * @example
 * ```ts
 * import { type AnswerRules, confirmRules } from '@parley/confirm';
 *
 * const rules: AnswerRules = confirmRules();
 * console.log(rules.unrecognised, rules.maxReprompts); // cancel 2
 * ```
 */
export interface AnswerRules {
  readonly vocabulary: Vocabulary;
  readonly unrecognised: 'cancel' | 'reprompt';
  readonly maxReprompts: number;
  readonly standingMs: number | undefined;
  readonly paging: boolean;
}

/**
 * An event that may answer a confirmation: a text reply, a card click, or its deadline. Part of
 * {@link ConfirmationEvent}.
 *
 * @example
 * ```ts
 * import type { ConfirmationAnswer } from '@parley/confirm';
 *
 * const deadline: ConfirmationAnswer = { type: 'deadline' };
 * console.log(deadline.type); // deadline
 * ```
 */
export type ConfirmationAnswer =
  | {
      readonly type: 'reply';
      readonly text: string;
      readonly senderId: string;
      /** The arrival number the runner gave the message when it reached the gate. */
      readonly arrival: number;
      /** The message's place in the platform's per-chat order, when the adapter gave one. */
      readonly order: PlatformOrder | undefined;
      readonly bot: boolean;
      /** The runner holds no more answers for this prompt (a bound): one it would hold does not count. */
      readonly full?: boolean;
      /**
       * The session's confirmation decided just before this one did not take it as its answer
       * (the runner offers it there first when it reached the gate before this prompt's send began).
       */
      readonly lateChecked?: boolean;
    }
  | {
      readonly type: 'card';
      readonly choice: 'confirm' | 'cancel' | 'always';
      readonly senderId: string;
      readonly sessionKey: string;
      readonly promptSession: string;
      readonly arrival: number;
      readonly bot: boolean;
    }
  | { readonly type: 'deadline' };

/**
 * Who and what decided a confirmation, besides its outcome and reason: the person, the reply as
 * kept, the exact step that failed, and the end of a standing allowance.
 *
 * @example
 * ```ts
 * import type { DecisionDetails } from '@parley/confirm';
 *
 * const details: DecisionDetails = { decidedBy: 'alice', reply: '确认' };
 * console.log(details.decidedBy); // alice
 * ```
 */
export type DecisionDetails = Pick<ConfirmDecision, 'decidedBy' | 'reply' | 'failedStep' | 'allowUntil'>;

/**
 * What the answer rules made of a reply, a click or the deadline: passed on to the agent,
 * consumed without counting (and why), held until the prompt's receipt, refused, settled, timed
 * out, the next step, a re-prompt or a summary page.
 *
 * @example
 * ```ts
 * import type { ConfirmationVerdict } from '@parley/confirm';
 *
 * const verdict: ConfirmationVerdict = { kind: 'ignore', code: 'before_delivery', tooEarly: true };
 * console.log(verdict.kind); // ignore
 * ```
 */
export type ConfirmationVerdict =
  /** Not an answer: the message goes on to the agent. */
  | { readonly kind: 'pass'; readonly code?: (typeof IGNORED_REPLY_CODES)[number] }
  /** Consumed, not counted; `tooEarly`: tell the person the answer came too early (rule 2). */
  | {
      readonly kind: 'ignore';
      readonly code: (typeof IGNORED_REPLY_CODES)[number];
      readonly tooEarly?: boolean;
    }
  /**
   * It reached the gate before the prompt's send began (rule 1): it may answer the session's
   * confirmation decided just before ("确认" sent twice); offer it there, then here again with
   * `lateChecked`.
   */
  | { readonly kind: 'before_send' }
  /** The after-decision memory of a decided confirmation is over: forget it. */
  | { readonly kind: 'forget' }
  /** The prompt is in flight and the reply carries a platform order: judge it when the receipt arrives. */
  | { readonly kind: 'hold' }
  /** A card click that does not count (consumed). */
  | { readonly kind: 'refuse'; readonly code: (typeof CARD_REFUSAL_CODES)[number] }
  | {
      readonly kind: 'settle';
      readonly outcome: ConfirmOutcome;
      readonly reason: DecisionReason;
      readonly extra?: DecisionDetails;
      readonly notice?: 'timedOut' | 'expired';
    }
  /** The deadline has passed: `timed_out`; `consumed` says whether the message was an answer. */
  | { readonly kind: 'expire'; readonly consumed: boolean }
  /** The answer matched a step that is not the last: prompt the next one. */
  | { readonly kind: 'next_step' }
  | { readonly kind: 'reprompt' }
  /** The approver asked for the next page of a shortened summary. */
  | { readonly kind: 'page' };
