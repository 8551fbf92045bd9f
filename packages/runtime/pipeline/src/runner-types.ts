import type { Clock, ConsentLedger, EmitterOptions, JsonValue, Store, Unsubscribe } from '@parley/core';
import type { ArtifactSet, Topology } from '@parley/envelope';
import type { ReviewIssue } from '@parley/conflict';
import type { RunRefusalCode } from './errors.js';
import type { NodeRecord, NodeStatus, RunStatus } from './records.js';
import type { RetryContext } from './retry-context.js';
import type { SessionTool } from './session-tools.js';
import type { FailureKind, PipelineDefinition, ReviewNode, TaskNode } from './types.js';

/**
 * What a node's work gets: the node, which attempt this is and why it is repeated, the outputs of
 * the nodes already done, a revise request, and a signal that aborts on timeout or close.
 *
 * @example
 * ```ts
 * import type { NodeContext } from '@parley/pipeline';
 *
 * const work = (ctx: NodeContext): unknown =>
 *   ctx.node.kind === 'review' ? { verdict: 'pass' } : { from: ctx.node.agent, attempt: ctx.attempt };
 * ```
 */
export interface NodeContext {
  readonly runId: string;
  readonly node: (TaskNode | ReviewNode) & {
    readonly dependsOn: readonly string[];
    readonly timeoutMs: number;
  };
  /** 1-based, counting every attempt of this node in this run (restarts included). */
  readonly attempt: number;
  /** The spawned run's id in the topology (`spawn` nodes with a topology). */
  readonly spawnId?: string | undefined;
  /** The run's input, as given to `start`. */
  readonly input: JsonValue | undefined;
  /** The outputs of every node done so far, by node id. */
  readonly outputs: Readonly<Record<string, JsonValue | undefined>>;
  /**
   * Why this attempt repeats the previous one: its failure, with the missing fields of an invalid
   * output and the clarification to send. Stored with the node, so a restarted runner passes it too.
   */
  readonly retry?: RetryContext | undefined;
  /** Set when a review asked for a revision: the round and the reviewer's issues. */
  readonly revision?:
    | {
        readonly round: number;
        readonly issues: readonly ReviewIssue[];
        readonly summary?: string | undefined;
      }
    | undefined;
  /**
   * The session tools this node's agent may use (with a topology): the spawned run's at its depth,
   * or the run's parent's for a `self` node; from the runner's `sessionTools` ({@link sessionToolsAt}).
   */
  readonly tools?: readonly SessionTool[] | undefined;
  readonly signal: AbortSignal;
}

/**
 * Options of {@link createPipelineRunner}.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import type { PipelineRunnerOptions } from '@parley/pipeline';
 *
 * const options: PipelineRunnerOptions = { store: createMemoryStore(), work: () => ({ ok: true }) };
 * ```
 */
export interface PipelineRunnerOptions extends EmitterOptions {
  /** Where every node's state lives (compare-and-set); a restarted runner resumes from it. */
  readonly store: Store;
  /** Does a task or review node's work and returns its output (a review returns its verdict). */
  readonly work: (context: NodeContext) => unknown;
  readonly clock?: Clock;
  /**
   * This runner's name in the records: unique per live process. A runner restarted under the same
   * id takes over the nodes it was running at once; another id waits until their lease runs out.
   * A fresh `runner-<random>` by default, so two processes started with the defaults never take
   * each other's running nodes for their own.
   */
  readonly runnerId?: string;
  /** Key prefix of the records; `pipeline:` by default. */
  readonly keyPrefix?: string;
  /**
   * How long a run's records live after its last write; 7 days by default. While the run runs they
   * live this plus its longest wait (the longest node timeout or approval wait, plus the lease grace),
   * so a wait longer than `ttlMs` never loses the run.
   */
  readonly ttlMs?: number;
  /** How long past a node's timeout its lease lasts before another runner may take it; 60 s by default. */
  readonly leaseGraceMs?: number;
  /** The artifact schemas node outputs are checked against, by the node's `output` name. */
  readonly artifacts?: ArtifactSet;
  /** The spawn tree: `spawn` nodes take a slot under the run's parent (`spawnWhenFree`) per attempt. */
  readonly topology?: Topology;
  /**
   * Which session tools an agent may use at a depth of the topology (`ctx.tools`); the reference
   * table by default ({@link sessionToolsAt}): all at depth 0, never `sessions_send` below it,
   * none at the deepest level.
   */
  readonly sessionTools?: (agent: {
    readonly depth: number;
    readonly maxSpawnDepth: number;
    readonly node: string;
    readonly agent: string;
  }) => readonly SessionTool[];
  /** Names each spawned run; `<runId>/<node>-<n>` by default. */
  readonly spawnId?: (info: {
    readonly runId: string;
    readonly node: string;
    readonly spawn: number;
  }) => string;
  /** Runs driven at once by this runner; 100 by default. */
  readonly maxRuns?: number;
  /** Nodes of one run running at once, so side-by-side runs share the limits fairly; 8 by default. */
  readonly maxParallelPerRun?: number;
  /**
   * A consent ledger (`@parley/ledger`'s `createLedger`, or any `ConsentLedger` of `@parley/core`)
   * for approval nodes, in the session `pipeline:<run id>` under the confirmation id
   * `approval:<node>`: the request when the node starts waiting, the answer before a decision is
   * stored (`decide` refuses `not_recorded` and stores nothing when it cannot be recorded), and the
   * decision as stored (approved: `confirmed`, rejected: `cancelled`, expired: `timed_out`).
   */
  readonly ledger?: ConsentLedger;
}

/**
 * Options of {@link PipelineRunner.start} and {@link PipelineRunner.resume}.
 *
 * @example
 * ```ts
 * import type { StartRunOptions } from '@parley/pipeline';
 *
 * const options: StartRunOptions = { runId: 'daily-2026-04-10', parent: 'quant_strategist', input: { market: 'BTC/USDT' } };
 * ```
 */
export interface StartRunOptions {
  readonly runId: string;
  /** The topology agent spawn nodes spawn under; the pipeline's `owner` by default. */
  readonly parent?: string;
  /** Passed to every node's work; stored with the run (start only). */
  readonly input?: JsonValue;
}

/**
 * How a run ended, or why it was not driven to the end.
 *
 * @example
 * ```ts
 * import type { RunResult } from '@parley/pipeline';
 *
 * const result: RunResult = { ok: false, runId: 'r1', code: 'run_exists', message: 'Run r1 exists' };
 * ```
 */
export type RunResult =
  | {
      readonly ok: true;
      readonly runId: string;
      readonly status: RunStatus;
      readonly nodes: Readonly<Record<string, NodeRecord>>;
    }
  | { readonly ok: false; readonly runId: string; readonly code: RunRefusalCode; readonly message: string };

/**
 * A person's answer to an approval node.
 *
 * @example
 * ```ts
 * import type { ApprovalDecision } from '@parley/pipeline';
 *
 * const decision: ApprovalDecision = { approved: true, by: 'chairman', reason: 'Go, at half size.' };
 * ```
 */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly reason?: string;
  readonly by?: string;
}

/**
 * What a pipeline runner reports. `node` fires on every transition, after the record is stored.
 *
 * @example
 * ```ts
 * import type { PipelineRunnerEvents } from '@parley/pipeline';
 *
 * const line = (e: PipelineRunnerEvents['node']): string => `${e.node}: ${e.previous} → ${e.status}`;
 * ```
 */
export interface PipelineRunnerEvents {
  node: {
    readonly runId: string;
    readonly node: string;
    readonly previous: NodeStatus;
    readonly status: NodeStatus;
    readonly attempt: number;
    readonly revision: number;
    readonly spawnId?: string | undefined;
    readonly code?: string | undefined;
    readonly reason?: string | undefined;
    readonly escalateTo?: string | undefined;
  };
  failure: {
    readonly runId: string;
    readonly node: string;
    readonly attempt: number;
    readonly kind: FailureKind;
    readonly message: string;
    readonly missingFields?: readonly string[] | undefined;
    readonly next: 'retry' | 'skip' | 'escalate' | 'abort';
  };
  revise: {
    readonly runId: string;
    readonly node: string;
    readonly round: number;
    readonly max: number;
    readonly target?: string | undefined;
    readonly issues: readonly ReviewIssue[];
  };
  approval: {
    readonly runId: string;
    readonly node: string;
    readonly channel?: string | undefined;
    readonly deadlineAt: number;
  };
  run: { readonly runId: string; readonly status: RunStatus | 'started' | 'resumed' };
  ignored: {
    readonly runId: string;
    readonly node: string;
    readonly code: 'late_result' | 'lost_race' | 'lease_lost';
  };
  refused: {
    readonly runId: string;
    readonly code: RunRefusalCode;
    readonly message: string;
    readonly key?: string | undefined;
  };
}

/**
 * A pipeline runner made by {@link createPipelineRunner}.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { createPipelineRunner, type PipelineRunner } from '@parley/pipeline';
 *
 * const runner: PipelineRunner = createPipelineRunner({ store: createMemoryStore(), work: () => ({}) });
 * await runner.close();
 * ```
 */
export interface PipelineRunner {
  /** Starts a new run and resolves when it ends (or is refused: `run_exists`, `too_many_runs`, `closed`…). */
  start(definition: PipelineDefinition, options: StartRunOptions): Promise<RunResult>;
  /**
   * Drives a stored run to its end without re-running finished nodes (`unknown_run`,
   * `definition_mismatch`, `corrupt_record`, `already_running` refused). A finished run resolves at once.
   */
  resume(definition: PipelineDefinition, options: Omit<StartRunOptions, 'input'>): Promise<RunResult>;
  /** Answers a waiting approval node, checking its stored deadline (`expired`, `not_waiting`…). */
  decide(
    definition: PipelineDefinition,
    runId: string,
    node: string,
    decision: ApprovalDecision,
  ): Promise<
    { readonly ok: true } | { readonly ok: false; readonly code: RunRefusalCode; readonly message: string }
  >;
  /** Every node's stored state (pending when never written), or `undefined` for an unknown run. */
  snapshot(
    definition: PipelineDefinition,
    runId: string,
  ): Promise<Readonly<Record<string, NodeRecord>> | undefined>;
  /** Runs this runner is driving now. */
  active(): readonly string[];
  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof PipelineRunnerEvents & string>(
    event: K,
    listener: (payload: PipelineRunnerEvents[K]) => void,
  ): Unsubscribe;
  /** Stops driving every run (each resolves `closed`); their records stay for a later resume. */
  close(): Promise<void>;
}
