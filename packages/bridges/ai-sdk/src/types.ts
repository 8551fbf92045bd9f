import type { ConfirmDecision, ConfirmGate, ConfirmGateOptions } from '@parley/confirm';
import type { Clock, Emitter, JsonValue, Store } from '@parley/core';
import type { LoopGate, LoopGateContext, ToolGateEvents, ToolGateOptions, ToolPolicy } from '@parley/tools';
import type { ModelMessage, ToolSet } from 'ai';

/**
 * Options for {@link createAiSdkBridge}.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import type { AiSdkBridgeOptions } from '@parley/ai-sdk';
 *
 * const options: AiSdkBridgeOptions<{ readOnly: boolean }> = {
 *   tools: {},
 *   confirm: { bus: createMessageBus() },
 *   requireApproval: [],
 * };
 * ```
 */
export interface AiSdkBridgeOptions<TContext> {
  /** The AI SDK tools (each with `execute`); their names are the Parley tool names. */
  readonly tools: ToolSet;
  /** The confirm gate's options, without `store`, `clock` and `resume`, which the bridge sets. */
  readonly confirm: Omit<ConfirmGateOptions, 'store' | 'clock' | 'resume'>;
  /**
   * Tools a person must approve, besides those whose own `needsApproval` is `true` or a function
   * (the function is still asked per call).
   */
  readonly requireApproval?: readonly string[];
  /** The tools the model may call; every tool of `tools` by default. Others are left out of the set. */
  readonly allowlist?: readonly string[];
  /** State-dependent rules (`@parley/tools` policies); a refusal comes back to the model as the tool's result. */
  readonly policies?: readonly ToolPolicy<TContext>[];
  /** Where approvals, decisions and executed call ids live; in memory by default. Share it between replicas. */
  readonly store?: Store;
  readonly clock?: Clock;
  /** Prefix of the bridge's store keys; `parley:ai-sdk:` by default. */
  readonly keyPrefix?: string;
  /** How long approval records (and, with a ledger, the links of authorized calls to their confirmation) live after their last write; 7 days by default. */
  readonly recordTtlMs?: number;
  /** Replaces the text of the tool gate's refusals, per code. */
  readonly messages?: ToolGateOptions<readonly [], unknown>['messages'];
  /**
   * Continues a conversation whose approval was answered after a restart (or on another gate): it
   * gets the messages to append and run `generateText` with, exactly once per approval. Without it,
   * an approval answered after a restart is told it expired and nothing runs.
   */
  readonly onResume?: (resumed: ResumedApproval) => void | Promise<void>;
}

/**
 * What a set of tools is bound to: the turn (call ids run at most once per turn), the host's
 * context for policies, and, for tools asked from the conflict loop, where to ask for confirmation.
 *
 * @example
 * ```ts
 * import type { BridgeRun } from '@parley/ai-sdk';
 *
 * const run: BridgeRun<{ readOnly: boolean }> = { turn: 1, context: { readOnly: false } };
 * ```
 */
export interface BridgeRun<TContext> {
  readonly turn: number;
  readonly context: TContext;
  readonly sessionKey?: string | undefined;
  readonly requester?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Options of {@link AiSdkBridge.approve}: whose chat to ask, who may answer (by default the
 * requester), how long to wait, and host data kept with the approval for a resume.
 *
 * @example
 * ```ts
 * import type { ApproveOptions } from '@parley/ai-sdk';
 *
 * const options: ApproveOptions = { sessionKey: 'telegram:42', requester: 'u1', state: { chat: 42 } };
 * ```
 */
export interface ApproveOptions {
  readonly sessionKey: string;
  readonly requester: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Kept with the approval record and given back to `onResume`. */
  readonly state?: JsonValue;
}

/**
 * What {@link AiSdkBridge.approve} resolves to: the messages to append (the result's response
 * messages and one `tool` message of `tool-approval-response` parts), the decisions, and the
 * approval ids another gate already resumed (their messages must not be sent again).
 *
 * @example
 * ```ts
 * import type { ApprovalAnswer } from '@parley/ai-sdk';
 *
 * const allApproved = (answer: ApprovalAnswer): boolean => answer.approved;
 * ```
 */
export interface ApprovalAnswer {
  readonly messages: ModelMessage[];
  readonly decisions: readonly ConfirmDecision[];
  /** True when every approval request was confirmed. */
  readonly approved: boolean;
  /**
   * Approval ids answered elsewhere: taken by a resume on another gate, or left for the next process
   * because this bridge closed while waiting. Continue there, not here.
   */
  readonly resumedElsewhere: readonly string[];
}

/**
 * An approval answered after a restart or on another gate, handed to `onResume` once.
 *
 * @example
 * ```ts
 * import type { ResumedApproval } from '@parley/ai-sdk';
 *
 * const onResume = (resumed: ResumedApproval): number => resumed.messages.length;
 * ```
 */
export interface ResumedApproval {
  /** The stored response messages and the `tool` message with the approval response. */
  readonly messages: ModelMessage[];
  readonly decision: ConfirmDecision;
  readonly sessionKey: string;
  readonly requester: string;
  readonly state: JsonValue;
}

/**
 * A bridge made by {@link createAiSdkBridge}.
 *
 * @example
 * ```ts
 * import type { AiSdkBridge } from '@parley/ai-sdk';
 *
 * const toolsOf = (bridge: AiSdkBridge<null>) => bridge.tools({ turn: 1, context: null });
 * ```
 */
export interface AiSdkBridge<TContext> {
  /** The gated tool set to pass to `generateText` / `streamText` for this turn. */
  tools(run: BridgeRun<TContext>): ToolSet;
  /** The same tools without `execute`, for the conflict loop (the loop's gate runs the calls). */
  definitions(): ToolSet;
  /** The gate the conflict loop runs calls through (confirmation is asked in chat, blocking). */
  loopGate<TState>(select: (context: LoopGateContext<TState>) => BridgeRun<TContext>): LoopGate<TState>;
  /**
   * Asks the person, in chat, about every `tool-approval-request` of a `generateText` or
   * `streamText` result (once its stream has finished) and resolves to the messages to continue with.
   * @throws AiSdkBridgeError `invalid_result` when `result` has no `content` / `response.messages`.
   */
  approve(result: ApprovalSource, options: ApproveOptions): Promise<ApprovalAnswer>;
  /** The confirm gate the bridge made (for `on`, `pending`, `audit`). */
  readonly confirmGate: ConfirmGate;
  /**
   * Adds a listener for an event of the bridge's tool gate; returns a function that removes it.
   * `error` tells the host why a call was refused `confirmation_failed` while the model reads only
   * the gate's generic text: its `error` is an {@link AiSdkBridgeError} (`call_id_reused`,
   * `store_failed`, `corrupt_record`, `record_version`) or what the confirm gate threw.
   */
  on: Emitter<ToolGateEvents>['on'];
  /** Resolves once approvals pending before a restart are loaded. */
  readonly ready: Promise<void>;
  /** Closes the confirm gate; pending approvals stay in the store for the next process. */
  close(): Promise<void>;
}

/**
 * The part of a `generateText` result {@link AiSdkBridge.approve} reads; a `streamText` result
 * too, whose `content` and `response` are promises that settle when the stream has finished.
 *
 * @example
 * ```ts
 * import type { ApprovalSource } from '@parley/ai-sdk';
 *
 * const empty: ApprovalSource = { content: [], response: { messages: [] } };
 * ```
 */
export interface ApprovalSource {
  readonly content: readonly unknown[] | PromiseLike<readonly unknown[]>;
  readonly response:
    | { readonly messages: readonly ModelMessage[] }
    | PromiseLike<{ readonly messages: readonly ModelMessage[] }>;
}
