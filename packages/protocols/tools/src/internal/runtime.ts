import type { Clock, ConsentLedger } from '@parley/core';
import type { ConfirmGate } from '@parley/confirm';
import type { AnyToolDefinition } from '../define.js';
import type { DisabledTool } from '../disabled-tool.js';
import type { ToolConfirmFn, ToolPolicy, ToolRefusalInfo, ToolRepairHook } from '../hook-types.js';
import type {
  DisableUntil,
  ExecutedToolCall,
  FailedToolCall,
  ToolCallRecord,
  ToolGateEvents,
  ToolRefusalCode,
} from '../types.js';
import type { CallContent } from './content.js';

// The shapes the gate's internals pass between each other: the judge, the memory, refusals and
// confirmation all import them from here and never from each other's files.

/** A call about to run, as the memory needs it to write its claim or its unknown outcome. */
export interface CallBase {
  readonly id: string;
  readonly tool: string;
  readonly requested: ToolCallRecord['requested'];
  /** `canonicalJson({ tool, args })` of the call as proposed (written when needed): what makes it the same call. */
  readonly content: CallContent;
}

/** What the gate lends the judgement of one call. */
export interface Runtime<TContext> {
  readonly byName: ReadonlyMap<string, AnyToolDefinition>;
  readonly names: readonly string[];
  readonly policies: readonly ToolPolicy<TContext>[];
  readonly confirm: ConfirmGate | ToolConfirmFn<TContext> | undefined;
  readonly repair: ToolRepairHook<TContext> | undefined;
  /** The consent ledger of confirmed calls, and whether a failed append stops the call. */
  readonly ledger: { readonly to: ConsentLedger; readonly required: boolean } | undefined;
  readonly clock: Clock;
  readonly messages: Partial<Readonly<Record<ToolRefusalCode, (info: ToolRefusalInfo) => string>>>;
  activeDisable(tool: string, turn: number): DisabledTool | undefined;
  disable(tool: string, until: DisableUntil, reason: string): void;
  emit<K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]): void;
  /**
   * With a store: claims the call right before its executor runs (`undefined` when claimed, or the
   * outcome to answer instead), and records the outcome after.
   */
  readonly persist?:
    | {
        claim(turn: number, base: CallBase): Promise<Settled | undefined>;
        release(turn: number, base: CallBase, settled: Settled): Promise<void>;
      }
    | undefined;
}

/** The outcome of one call; `ran` is true when the executor was invoked and did not refuse. */
export interface Settled {
  readonly record: ToolCallRecord;
  readonly executed?: ExecutedToolCall;
  readonly failed?: FailedToolCall;
  readonly ran: boolean;
}

/** A well-formed call (its shape was checked by the gate); it is also what its refusals report. */
export interface CheckedCall extends CallBase {
  readonly args: unknown;
  /** UTF-8 bytes of the id. */
  readonly idBytes: number;
  readonly reason?: string | undefined;
}
