import type { CheckpointLog, CheckpointRefusal, CheckpointsOptions } from '@parley/checkpoints';
import type { ConflictLoopOptions, ConflictOutcome, GenerateFn, Proposal } from '@parley/conflict';
import type { Clock, IdGenerator, Store } from '@parley/core';
import type { ToolGate, ToolGateSnapshot } from '@parley/tools';
import type { TurnRefusal } from './refusals.js';

/**
 * What a checkpoint (and the runner's head) holds: the turn it closes, the host's state and the
 * tool gate's disabled tools. `gate.turns` is empty: a turn's call ids are asked for only while it
 * runs (records written by earlier versions may still hold that turn's calls, and are read).
 *
 * @example
 * ```ts
 * import type { TurnCheckpoint } from '@parley/turns';
 *
 * const hpOf = (checkpoint: TurnCheckpoint<{ hp: number }>) => checkpoint.state.hp;
 * ```
 */
export interface TurnCheckpoint<TState> {
  /** The number of the turn in the current branch (0 before the first). */
  readonly turn: number;
  readonly turnId: string;
  readonly state: TState;
  readonly gate: ToolGateSnapshot;
}

/**
 * The facts of a turn the hooks get: its input, id, number and submission key.
 *
 * @example
 * ```ts
 * import type { TurnStart } from '@parley/turns';
 *
 * const label = (turn: TurnStart<string>) => `${turn.turnId} (#${turn.turn}): ${turn.input}`;
 * ```
 */
export interface TurnStart<TInput> {
  readonly input: TInput;
  readonly turnId: string;
  readonly turn: number;
  /** The submission key (given, or a fresh id when the caller gave none). */
  readonly key: string;
  /** When the turn started (epoch ms, injected clock). */
  readonly startedAt: number;
  /** A pending rollback became the branch with this command (undo is no longer possible). */
  readonly branchCommitted: boolean;
}

/**
 * What `prepare` returns for one turn: the model request, the model wrapper, the authoritative view
 * the detectors read, the context the gate's tools get, and anything the host wants back.
 *
 * @example
 * ```ts
 * import type { TurnPlan } from '@parley/turns';
 *
 * const plan: TurnPlan<{ hp: number }, string, undefined, null> = {
 *   request: 'The goblin attacks',
 *   generate: () => ({ text: 'The goblin misses.' }),
 *   readState: () => ({ hp: 20 }),
 *   context: undefined,
 *   data: null,
 * };
 * ```
 */
export interface TurnPlan<TView, TRequest, TContext, TData> {
  readonly request: TRequest;
  readonly generate: GenerateFn<TRequest, Proposal>;
  /** Read fresh for every attempt (the gate may have changed the state). */
  readonly readState: () => TView | Promise<TView>;
  /** The `context` of every tool call this turn (`ToolRunOptions.context`). */
  readonly context: TContext;
  /** Returned to the caller in the turn's result, and passed to `complete`. */
  readonly data: TData;
}

/**
 * Options of {@link createTurnRunner}. The hooks are the host's: what its state is, what a turn
 * prepares, and what record a turn leaves.
 *
 * @example
 * ```ts
 * import type { TurnRunnerOptions } from '@parley/turns';
 *
 * type Options = TurnRunnerOptions<string, { hp: number }, { hp: number }, string, string, undefined, null>;
 * const timeout: Options['turnTimeoutMs'] = 60_000;
 * ```
 */
export interface TurnRunnerOptions<
  TInput,
  TState,
  TView,
  TRequest,
  TRecord,
  TContext,
  TData,
  THostCode extends string = never,
> {
  /** Where the head, the journal and the checkpoints live. */
  readonly store: Store;
  /** `<prefix>turns:head` (a kernel record), and the checkpoints' keys under it. */
  readonly keyPrefix: string;
  readonly clock?: Clock;
  /** Turn ids, unique across branches; `turn_<nanoid>` by default. */
  readonly generateTurnId?: IdGenerator;
  /** The id of the first checkpoint `open` takes; `turn_0` by default. */
  readonly initialTurnId?: string;
  /**
   * Where the checkpoints live (the runner's `store` and `keyPrefix` by default) and how many are
   * kept for rollback (see `@parley/checkpoints`; 0 turns rollback off).
   */
  readonly checkpoints?: {
    /** The runner's `store` by default. */
    readonly store?: Store;
    /** The runner's `keyPrefix` by default. */
    readonly keyPrefix?: string;
    /** Checkpoints kept, or a function read at every take and rollback (a setting). */
    readonly maxCheckpoints?: CheckpointsOptions['maxCheckpoints'];
  };
  /** How long a started turn holds the runner; {@link DEFAULT_TURN_TIMEOUT_MS} by default. */
  readonly turnTimeoutMs?: number;
  /** How long settled submission keys stay in the head's journal (also bounded by count and bytes); {@link DEFAULT_JOURNAL_TTL_MS} by default. */
  readonly journalTtlMs?: number;
  /**
   * The longest input a turn takes, in characters of its canonical JSON (the head and the journal
   * keep it); {@link MAX_INPUT_LENGTH} by default. A longer one is refused `input_too_large`.
   */
  readonly maxInputLength?: number;
  /** The tool gate that judges and executes the model's calls; its disabled tools are checkpointed. */
  readonly gate: ToolGate<string, TContext>;
  /** The conflict loop's options (detectors, stateTools, K, policy…); a new loop runs every turn. */
  readonly loop?: Omit<ConflictLoopOptions<TView>, 'gate' | 'clock'>;
  /** Reads the host's authoritative state as plain JSON: what a commit and a checkpoint keep. */
  readonly capture: () => TState;
  /** Puts a kept state back (rollback, undo, a failed turn, a restart). */
  readonly restore: (state: TState) => void | Promise<void>;
  /** Sees the checkpoint log after every change. */
  readonly onLog?: (log: CheckpointLog) => void;
  /** Refuses an input before anything happens (return a refusal), or accepts it (`undefined`). */
  readonly accept?: (input: TInput) =>
    | { readonly code: THostCode; readonly message: string }
    | {
        readonly code: THostCode;
        /** @deprecated Return `message` instead; `reason` is read for one more minor version. */
        readonly reason: string;
      }
    | undefined;
  /** Builds the turn: snapshot the settings, build the context, choose the gate's context. */
  readonly prepare: (
    turn: TurnStart<TInput>,
  ) => TurnPlan<TView, TRequest, TContext, TData> | Promise<TurnPlan<TView, TRequest, TContext, TData>>;
  /**
   * Writes the turn's record (plain JSON) once the loop ended; it may apply host rules and write
   * host keys (idempotent writes: an abandoned turn runs again).
   */
  readonly complete: (
    turn: TurnStart<TInput>,
    outcome: ConflictOutcome<Proposal, TRequest>,
    data: TData,
  ) => TRecord | Promise<TRecord>;
}

/**
 * A turn that ran now, or one answered from the journal (`replayed`), or a refusal.
 *
 * @example
 * ```ts
 * import type { TurnResult } from '@parley/turns';
 *
 * const say = (result: TurnResult<string, string, null>) =>
 *   result.ok ? result.record : `refused: ${result.code}`;
 * ```
 */
export type TurnResult<TRecord, TRequest, TData, THostCode extends string = never> =
  | {
      readonly ok: true;
      readonly replayed: false;
      readonly turnId: string;
      readonly turn: number;
      readonly key: string;
      readonly record: TRecord;
      readonly outcome: ConflictOutcome<Proposal, TRequest>;
      readonly data: TData;
      readonly branchCommitted: boolean;
      /** The checkpoint of the turn, or why none was taken (the turn is committed either way). */
      readonly checkpoint: TurnCheckpointResult;
    }
  | {
      readonly ok: true;
      readonly replayed: true;
      readonly turnId: string;
      readonly turn: number;
      readonly key: string;
      readonly record: TRecord;
    }
  | TurnRefusal<THostCode>;

/**
 * Whether the checkpoint of a committed turn was taken: `ok`, a checkpoints refusal (`disabled`
 * when `maxCheckpoints` is 0), or `failed` when the write threw. The runner takes it again later.
 *
 * @example
 * ```ts
 * import type { TurnCheckpointResult } from '@parley/turns';
 *
 * const taken = (result: TurnCheckpointResult) => result.ok || result.code === 'disabled';
 * ```
 */
export type TurnCheckpointResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: CheckpointRefusal['code'] | 'failed';
      /** Why the checkpoint was not taken, in words. */
      readonly message: string;
      /** @deprecated Use `message` (the same text); removed in the next minor version. */
      readonly reason: string;
    };

/**
 * What `open` found: a fresh start, or the head a previous process left, with what it settled.
 *
 * @example
 * ```ts
 * import type { TurnOpenResult } from '@parley/turns';
 *
 * const describe = (opened: TurnOpenResult) => (opened.resumed ? `resumed at ${opened.turnId}` : 'new');
 * ```
 */
export interface TurnOpenResult {
  readonly resumed: boolean;
  readonly turn: number;
  readonly turnId: string;
  /** A turn a dead process left open, dropped (nothing of it was committed). */
  readonly abandoned?: string | undefined;
  /** A turn still open by another process (its deadline has not passed). */
  readonly pending?: { readonly turnId: string; readonly deadlineAt: number } | undefined;
}

/**
 * The events of a turn runner; each is emitted after the state it reports is committed.
 *
 * @example
 * ```ts
 * import type { TurnRunnerEvents } from '@parley/turns';
 *
 * const log = (e: TurnRunnerEvents['committed']) => console.log(`${e.turnId} committed`);
 * ```
 */
export interface TurnRunnerEvents {
  started: { readonly turnId: string; readonly turn: number; readonly key: string };
  committed: { readonly turnId: string; readonly turn: number; readonly key: string; readonly ok: boolean };
  replayed: { readonly turnId: string; readonly key: string };
  refused: { readonly code: string; readonly key: string | undefined };
  failed: { readonly turnId: string; readonly key: string; readonly message: string };
  /** A turn left open by a dead process was dropped, or a write it missed was done now. */
  recovered: { readonly turnId: string; readonly action: 'abandoned' | 'journal' | 'checkpoint' | 'head' };
  'checkpoint-failed': {
    readonly turnId: string;
    readonly code: string;
    readonly message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    readonly reason: string;
  };
}
