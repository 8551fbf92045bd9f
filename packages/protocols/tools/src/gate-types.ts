import type { Clock, ConsentLedger, Emitter, Store } from '@parley/core';
import type { ToolGateLimits } from './limits.js';
import type { DisabledTool } from './disabled-tool.js';
import type { ToolGateSnapshot } from './snapshot.js';
import type { ConfirmGate } from '@parley/confirm';
import type { AnyToolDefinition, ToolNameOf } from './define.js';
import type {
  DisableUntil,
  ToolBatchResult,
  ToolCallProposal,
  ToolGateEvents,
  ToolRefusalCode,
} from './types.js';
import type { ToolConfirmFn, ToolPolicy, ToolRefusalInfo, ToolRepairHook } from './hook-types.js';

/**
 * Options for {@link createToolGate}.
 *
 * @example
 * ```ts
 * import { defineTool, type ToolGateOptions } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * const options: ToolGateOptions<readonly [typeof ping], { phase: string }> = { tools: [ping], allowlist: ['ping'] };
 * ```
 */
export interface ToolGateOptions<TTools extends readonly AnyToolDefinition[], TContext> {
  /** The registered tools. */
  readonly tools: TTools;
  /** The allowlist configuration: every registered tool must be named in it, and nothing else. */
  readonly allowlist: readonly ToolNameOf<TTools>[];
  /** State-dependent rules, checked in order after the arguments are valid. */
  readonly policies?: readonly ToolPolicy<TContext, ToolNameOf<TTools>>[];
  /** How to ask a person for tools that need confirmation: a `@parley/confirm` gate or a function. */
  readonly confirm?: ConfirmGate | ToolConfirmFn<TContext>;
  readonly repair?: ToolRepairHook<TContext>;
  /**
   * A consent ledger (`@parley/ledger`'s `createLedger`, or any `ConsentLedger` of `@parley/core`)
   * that receives every confirmed call's consent before its executor runs and its effect after:
   * with a `@parley/confirm` gate the answer, decision and authorization (give that gate the same
   * ledger to record the request and prompts too); with a confirm function the request, decision
   * and authorization under the confirmation id `tool:<turn>:<call id>`. The effect is `succeeded`,
   * `failed` (the tool refused) or `unknown` (the executor threw). A call whose consent cannot be
   * recorded, or asked without a `sessionKey`, is refused `confirmation_failed` and never runs.
   */
  readonly ledger?: ConsentLedger;
  /** `false`: a call runs even when its consent could not be recorded (each failure is an `error` event); `true` by default. */
  readonly ledgerRequired?: boolean;
  readonly clock?: Clock;
  /**
   * How many turns of executed call ids to remember, counted back from the latest turn remembered
   * (that one included); 2 by default. A call in an older turn is refused `stale_turn`.
   */
  readonly keepTurns?: number;
  /**
   * What to do with a call under a fresh id whose content (tool and canonical arguments) equals a
   * call that already ran in this turn, in an earlier batch: `run` it (the default; its record and
   * result carry `sameContentAs`), `replay` the earlier outcome without running, or `refuse` it
   * (`already_applied`). Calls of one batch are distinct calls even when equal. Only what the gate
   * remembers locally counts (this process, or a restored snapshot; not other replicas).
   */
  readonly repeatedContent?: 'run' | 'replay' | 'refuse';
  /** Caps on batches, calls and what the gate remembers; {@link DEFAULT_TOOL_GATE_LIMITS} otherwise. */
  readonly limits?: Partial<ToolGateLimits>;
  /**
   * Persists the once-per-turn memory, so it survives a restart and is shared by gates on the same
   * store: a call id is claimed (`executing`, by compare-and-set) right before its executor runs and
   * recorded with its outcome after. A call found `executing` (the process died mid-call, or another
   * replica is running it) is answered `outcome_unknown` and never run again automatically.
   * Executor results must be JSON to be recorded.
   */
  readonly store?: Store;
  /** The key prefix in `store`; `parley:tools:` by default (keys are `<prefix><turn>:<call id>`). */
  readonly storePrefix?: string;
  /** How long stored entries live; forever by default (old turns are not swept from the store). */
  readonly storeTtlMs?: number;
  /** Resume from a {@link ToolGate.snapshot}: remembered call ids and disabled tools. */
  readonly snapshot?: ToolGateSnapshot;
  /** Replaces the text of refusals, per code (e.g. to answer the model in its language). */
  readonly messages?: Partial<Readonly<Record<ToolRefusalCode, (info: ToolRefusalInfo) => string>>>;
  /** Called when an event listener throws; by default the error is rethrown in a microtask. */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * What one batch is processed with: the turn, the host's context (machine state, settings
 * snapshot…), where a confirmation is asked and by whom, and a signal.
 *
 * @example
 * ```ts
 * import type { ToolRunOptions } from '@parley/tools';
 *
 * const run: ToolRunOptions<{ state: string }> = {
 *   turn: 3, context: { state: 'exploring' }, sessionKey: 'feishu:oc_1', requester: 'ou_alice',
 * };
 * ```
 */
export interface ToolRunOptions<TContext> {
  /** The turn number; call ids are remembered per turn, and tools can be disabled until one. */
  readonly turn: number;
  /**
   * The host's state the policies, confirmation and executors judge by. A gate created with a
   * context type that admits `undefined` (no policies) also takes {@link ToolRunOptionsWithoutContext}.
   */
  readonly context: TContext;
  /** Needed to ask a `@parley/confirm` gate. */
  readonly sessionKey?: string | undefined;
  /** The user whose message led to these calls; needed by a `@parley/confirm` gate. */
  readonly requester?: string | undefined;
  /** Passed to confirmation gates and executors; calls not yet started are refused once it aborts. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The wait for a confirmation; the confirm gate's default otherwise. Checked when the batch is
   * registered: `process` rejects with CoreError `invalid_timeout` unless it is a finite number in
   * (0, 2^31 − 1].
   */
  readonly confirmTimeoutMs?: number | undefined;
}

/**
 * A tool gate: judges batches of proposed calls against the registry, the allowlist, the policies
 * and confirmation, runs what passes at most once per call id and turn, and reports the rest as
 * `tool_feedback`. See {@link createToolGate}.
 *
 * @example
 * ```ts
 * import type { ToolGate } from '@parley/tools';
 *
 * async function runTurn(gate: ToolGate<string, { state: string }>, calls: { id: string; tool: string; args: unknown }[]) {
 *   const { feedback } = await gate.process(calls, { turn: 1, context: { state: 'exploring' } });
 *   return feedback.failed_calls.length === 0;
 * }
 * ```
 */
export interface ToolGate<TName extends string = string, TContext = unknown> {
  /** The canonical tool names, in registration order. */
  readonly names: readonly TName[];
  /** Judges and runs a batch in order; never throws for anything the model proposed. */
  process(calls: readonly ToolCallProposal[], options: ToolRunOptions<TContext>): Promise<ToolBatchResult>;
  /**
   * Disables a tool until a time or a turn (replacing an earlier disable).
   * @throws ToolsError `invalid_argument` for an unknown tool or a bad `until`.
   */
  disable(tool: TName, until: DisableUntil, reason?: string): void;
  /** Re-enables a tool; false when it was not disabled. */
  enable(tool: TName): boolean;
  /** The tools disabled now (at the given turn, or any turn when omitted). */
  disabled(turn?: number): readonly DisabledTool[];
  /**
   * The gate's memory as plain JSON: executed call ids with their recorded outcomes, per kept turn
   * (local memory, not the store), and the disabled tools. Persist it with the host's own snapshot.
   * Each remembered call is copied once, frozen, and shared by later snapshots (a snapshot per
   * turn costs what the turn added).
   * @throws ToolsError `invalid_snapshot` when a recorded result is not JSON.
   */
  snapshot(): ToolGateSnapshot;
  /**
   * Replaces the gate's memory and disabled tools with a snapshot's (e.g. after a rollback).
   * @throws ToolsError `invalid_snapshot` for a malformed snapshot or one naming an unknown tool.
   */
  restore(snapshot: ToolGateSnapshot): void;
  /**
   * Forgets the call ids remembered for turns after `turn` (locally and in the store), so turn
   * numbers may repeat after a rollback without replaying the abandoned future's calls.
   * @throws ToolsError `invalid_argument` when `turn` is not an integer.
   */
  forgetTurnsAfter(turn: number): Promise<void>;
  /** Forgets every remembered call id (locally and in the store) and re-enables every tool. */
  reset(): Promise<void>;
  /** Adds a listener for a gate event; returns a function that removes it. */
  on: Emitter<ToolGateEvents>['on'];
}

/**
 * Per-batch options without a context, for a gate whose context type admits `undefined` (created
 * with no policies, or with none that read a typed context): policies and executors get `undefined`.
 *
 * @example
 * ```ts
 * import { createToolGate, defineTool, type ToolRunOptionsWithoutContext } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), execute: () => 'pong' });
 * const gate = createToolGate({ tools: [ping], allowlist: ['ping'] });
 * const run: ToolRunOptionsWithoutContext = { turn: 1 };
 * const result = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], run);
 * console.log(result.executed[0]?.result); // pong
 * ```
 */
export type ToolRunOptionsWithoutContext = Omit<ToolRunOptions<undefined>, 'context'> & {
  readonly context?: undefined;
};

/**
 * The gate {@link createToolGate} returns: a {@link ToolGate} that, when its context type admits
 * `undefined` (no policies, or none that read a typed context), also takes batches without a
 * context. A gate whose policies read a context still requires it. It is assignable to
 * `ToolGate<TName, TContext>`, which code generic over the context should accept (that one always
 * takes the context, since a generic context may be required).
 *
 * @example
 * ```ts
 * import { createToolGate, defineTool, type CreatedToolGate } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), execute: () => 'pong' });
 * const gate: CreatedToolGate<'ping', unknown> = createToolGate({ tools: [ping], allowlist: ['ping'] });
 * const result = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], { turn: 1 });
 * console.log(result.executed.length); // 1
 * ```
 */
export type CreatedToolGate<TName extends string, TContext> = ToolGate<TName, TContext> &
  (undefined extends TContext
    ? {
        /** Judges and runs a batch without a context; policies and executors get `undefined`. */
        process(
          calls: readonly ToolCallProposal[],
          options: ToolRunOptionsWithoutContext,
        ): Promise<ToolBatchResult>;
      }
    : unknown);
