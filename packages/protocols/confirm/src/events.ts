import type { OutboundCard, PlatformOrder } from '@parley/bus';
import type { ConfirmDecision } from './decision.js';
import type { ConfirmOutcome } from './outcomes.js';
import type { CARD_REFUSAL_CODES, IGNORED_REPLY_CODES } from './refusal-codes.js';

// What a gate tells its host: its events, its texts, and the handler that resumes a decided action.

/**
 * The events of a {@link ConfirmGate}.
 *
 * @example
 * ```ts
 * import type { ConfirmEvents } from '@parley/confirm';
 *
 * const onDecided = (event: ConfirmEvents['decided']): void => console.log(event.decision.outcome);
 * ```
 */
export interface ConfirmEvents {
  /** A request waits behind another confirmation of its session (`whenPending: 'queue'`). */
  queued: { readonly id: string; readonly sessionKey: string; readonly position: number };
  /**
   * A prompt (first, next step, or re-prompt) was delivered: its exact `text`, the `card` sent with
   * it, and the platform's place for it (`order`) and id (`messageId`), from the send receipt, when
   * the adapter gave them.
   */
  prompted: {
    readonly id: string;
    readonly sessionKey: string;
    readonly step: number;
    readonly reprompt: boolean;
    readonly text?: string;
    readonly card?: OutboundCard;
    readonly order?: PlatformOrder;
    /** The platform's id of the prompt message, from the send receipt, when the adapter gave one. */
    readonly messageId?: string;
  };
  /** A confirmation settled; the decision is already recorded. */
  decided: { readonly decision: ConfirmDecision };
  /** A message of a pending session was not counted as a reply. */
  ignored: {
    readonly id: string;
    readonly sessionKey: string;
    readonly senderId: string;
    readonly code: (typeof IGNORED_REPLY_CODES)[number];
  };
  /** A card click was refused. */
  refused: {
    readonly code: (typeof CARD_REFUSAL_CODES)[number];
    readonly senderId: string;
    readonly id?: string;
  };
  /**
   * A store write, a notice, a host template or resume handler failed, or a stored record could
   * not be read (`corrupt_record`); the gate keeps going and the confirmation concerned settles
   * as a refusal where one is waiting.
   */
  error: { readonly error: unknown; readonly id?: string };
}

/**
 * Texts the gate sends; each can be replaced.
 *
 * @example
 * ```ts
 * import type { ConfirmMessages } from '@parley/confirm';
 *
 * const messages: Partial<ConfirmMessages> = { prompt: (summary) => `OK to run ${summary}? (yes/no)` };
 * ```
 */
export interface ConfirmMessages {
  /**
   * The first prompt; `allowAlways` when standing allowances are on. `summary` is the rendered
   * one: action name, short digest, and the (visibly shortened) summary.
   */
  prompt(summary: string, allowAlways: boolean): string;
  /** Sent after an unrecognised reply under `unrecognised: 'reprompt'`. */
  reprompt(summary: string, attemptsLeft: number): string;
  /** Sent when a confirmation timed out. */
  timedOut(summary: string): string;
  /** Sent when a confirmation made before a restart is answered and no `resume` handler exists. */
  expired(summary: string): string;
  /**
   * Sent (once per prompt) when an answer arrived before the prompt's send resolved and the
   * platform gives no order to tell whether it was written after the prompt: it did not count,
   * and the person is asked to answer again.
   */
  tooEarly(summary: string): string;
  /**
   * Sent (once per decision) when an answer to a confirmation decided moments ago is absorbed:
   * "already confirmed", "already cancelled" or "expired", by the decision's outcome.
   */
  late(summary: string, outcome: ConfirmOutcome): string;
}
