import type { MessageBus } from '@parley/bus';
import type { JsonValue, ManualClock, Store } from '@parley/core';

/**
 * Who acts in a conformance case: the member who asked for the action, or another member of the
 * same group chat.
 *
 * @example
 * ```ts
 * import type { ConformanceUser } from '@parley/testing';
 *
 * const users: ConformanceUser[] = ['requester', 'other'];
 * ```
 */
export type ConformanceUser = 'requester' | 'other';

/**
 * One update handed to the bot by the stand-in; `redeliver` hands the very same update again, as
 * the platform does when it did not see an acknowledgement (same event id, same payload).
 *
 * @example
 * ```ts
 * import type { ConformanceDelivery } from '@parley/testing';
 *
 * const twice = async (delivery: ConformanceDelivery): Promise<void> => delivery.redeliver();
 * ```
 */
export interface ConformanceDelivery {
  /** Hands the same update to the bot again; resolves once it was handled. */
  redeliver(): Promise<void>;
}

/**
 * One bot process on the platform: the real platform library pointed at the stand-in, the
 * adapter, and a bus with the adapter attached. Each method resolves once the bot has handled
 * the update (the platform library's request or frame has been answered).
 *
 * @example
 * ```ts
 * import type { AdapterProcess } from '@parley/testing';
 *
 * const sayConfirm = (bot: AdapterProcess, at: number) => bot.text('requester', '确认', at);
 * ```
 */
export interface AdapterProcess {
  /** The bus the adapter is attached to (with the hygiene interceptor, as a real bot has). */
  readonly bus: MessageBus;
  /** A text message from `user` in the group chat, stamped `at` (epoch ms; the platform may round it). */
  text(user: ConformanceUser, text: string, at: number): Promise<ConformanceDelivery>;
  /** A click by `user` on the confirm or cancel button of the last prompt card the stand-in received. */
  click(user: ConformanceUser, button: 'confirm' | 'cancel', at: number): Promise<ConformanceDelivery>;
  /** How many prompt cards (messages with buttons) the stand-in has received so far, over restarts. */
  prompts(): number;
  /** Stops the process (library, adapter, bus); the stand-in keeps running for the next `start`. */
  stop(): Promise<void>;
}

/**
 * The subset of `@parley/confirm`'s decision the cases read.
 *
 * @example
 * ```ts
 * import type { ConformanceDecision } from '@parley/testing';
 *
 * const confirmed = (d: ConformanceDecision): boolean => d.outcome === 'confirmed';
 * ```
 */
export interface ConformanceDecision {
  readonly id: string;
  readonly outcome: string;
  readonly reason: string;
  readonly decidedBy?: string;
}

/**
 * The options the cases pass to {@link AdapterConformanceSubject.createGate}: those of
 * `createConfirmGate` from `@parley/confirm`.
 *
 * @example
 * ```ts
 * import type { ConformanceGateOptions } from '@parley/testing';
 *
 * const keys = (options: ConformanceGateOptions): string[] => Object.keys(options.resume ?? {});
 * ```
 */
export interface ConformanceGateOptions {
  readonly bus: MessageBus;
  readonly clock: ManualClock;
  readonly store: Store;
  /** Handlers by action name for confirmations restored after a restart. */
  readonly resume?: Readonly<Record<string, (decision: ConformanceDecision) => void>>;
}

/**
 * The subset of `@parley/confirm`'s `ConfirmGate` the cases use; a `ConfirmGate` is one.
 *
 * @example
 * ```ts
 * import type { ConformanceGate } from '@parley/testing';
 *
 * const waiting = (gate: ConformanceGate): number => gate.pending().length;
 * ```
 */
export interface ConformanceGate {
  readonly ready: Promise<void>;
  /** Prompts the session and resolves to the decision. */
  request(request: {
    readonly sessionKey: string;
    readonly requester: string;
    readonly action: { readonly name: string; readonly args?: JsonValue };
    readonly summary: string;
  }): Promise<ConformanceDecision>;
  /** Takes the decision's id (a `ConfirmGate` takes the decision or its id). */
  authorize(
    decisionId: string,
    action: { readonly name: string; readonly args?: JsonValue },
  ): Promise<{ readonly ok: boolean }>;
  /** The confirmations pending in this gate. */
  pending(): readonly { readonly requester: string; readonly restored: boolean }[];
  /** Subscribes to a refused card click; returns a function that unsubscribes. */
  on(
    event: 'refused',
    listener: (event: { readonly code: string; readonly senderId: string }) => void,
  ): () => void;
  /** Subscribes to a prompt sent or a decision made; returns a function that unsubscribes. */
  on(event: 'prompted' | 'decided', listener: () => void): () => void;
  /** Closes the gate; persisted confirmations stay for the next gate. */
  close(): Promise<void>;
}

/**
 * What {@link adapterConformanceCases} needs to run the confirmation flow on a platform: a stand-in
 * of the platform already listening, how to start a bot process against it (again after a stop:
 * a restart), and the gate factory (`createConfirmGate` from `@parley/confirm`, passed in so that
 * `@parley/testing` does not depend on it).
 *
 * @example
 * ```ts
 * import { createConfirmGate } from '@parley/confirm';
 * import { createManualClock } from '@parley/core';
 * import type { AdapterConformanceSubject, AdapterProcess } from '@parley/testing';
 *
 * declare function startMyBot(clock: ReturnType<typeof createManualClock>): Promise<AdapterProcess>;
 * const clock = createManualClock({ now: Date.UTC(2026, 0, 1) });
 * const subject: AdapterConformanceSubject = {
 *   clock,
 *   start: () => startMyBot(clock),
 *   createGate: (options) => createConfirmGate(options),
 *   close: async () => {},
 * };
 * ```
 */
export interface AdapterConformanceSubject {
  /** The clock the bot, its bus and the gate run on; the cases move it between updates. */
  readonly clock: ManualClock;
  /** Starts a bot process against the stand-in; called again after `stop` for a restart. */
  start(): Promise<AdapterProcess>;
  /** Creates a confirmation gate: `(options) => createConfirmGate(options)`. */
  createGate(options: ConformanceGateOptions): ConformanceGate;
  /** Stops the stand-in (after the case stopped the process it started). */
  close(): Promise<void>;
}

/**
 * One named check of an adapter against the seed's confirmation flow: `run` throws (TestingError
 * `assertion_failed`, or what the adapter threw) when the adapter breaks it, and stops what it
 * started either way.
 *
 * @example
 * ```ts
 * import { adapterConformanceCases, type AdapterConformanceCase } from '@parley/testing';
 *
 * const names: string[] = adapterConformanceCases().map((c: AdapterConformanceCase) => c.name);
 * ```
 */
export interface AdapterConformanceCase {
  /** A present-tense sentence naming the behaviour; stable across releases. */
  readonly name: string;
  /** Runs the case on a fresh subject from `make`; throws when the adapter breaks it. */
  run(make: () => Promise<AdapterConformanceSubject>): Promise<void>;
}
