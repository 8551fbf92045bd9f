import type { Clock, Committed, ConsentLedger, Emitter, JsonValue, Kernel, Lease, Store } from '@parley/core';
import type { ArtifactSet, Topology } from '@parley/envelope';
import type { NodeContext, PipelineRunnerEvents, PipelineRunnerOptions } from '../runner-types.js';
import type { NodeRecord, RunRecord } from '../records.js';
import type { PipelineDefinition } from '../types.js';

/** What every part of a runner shares. */
export interface RunnerEnv {
  readonly store: Store;
  /** The durable kernel over the store, owned by `runnerId`: run headers and node records are its records. */
  readonly kernel: Kernel;
  readonly clock: Clock;
  readonly runnerId: string;
  readonly prefix: string;
  readonly ttlMs: number;
  readonly leaseGraceMs: number;
  readonly events: Emitter<PipelineRunnerEvents>;
  readonly work: (context: NodeContext) => unknown;
  readonly artifacts: ArtifactSet | undefined;
  readonly topology: Topology | undefined;
  /** Where approval nodes' consent is recorded (`PipelineRunnerOptions.ledger`). */
  readonly ledger: ConsentLedger | undefined;
  readonly sessionTools: NonNullable<PipelineRunnerOptions['sessionTools']>;
  /** Names spawned runs (`attemptSpawn`'s default when undefined). */
  readonly spawnId: PipelineRunnerOptions['spawnId'];
}

/** One run being driven by this process. */
export interface ActiveRun {
  readonly runId: string;
  readonly definition: PipelineDefinition;
  readonly parent: string | undefined;
  /** The run's header as this runner created or read it: its final write starts from it. */
  readonly header: Committed<RunRecord>;
  readonly input: JsonValue | undefined;
  /** Aborted on close (reason `closed`) or when a node aborts the run (reason `aborted`). */
  readonly controller: AbortController;
  /** Stops the attempts in progress; called once when `controller` aborts (one listener per run). */
  readonly stops: Set<() => void>;
  /** Node records as last read or written, by node id (a cache: every write re-reads the store). */
  readonly records: Map<string, NodeRecord>;
  /**
   * Each cached record as committed (its store version included), by node id (absent: unknown): the
   * drive loop skips a watched change it has seen, and the next write on it starts from it.
   */
  readonly committed: Map<string, Committed<NodeRecord>>;
  /** The node leases this process holds (their fencing tokens), by node id. */
  readonly leases: Map<string, Lease>;
  /** Until when another runner holds a lease on a node it has not started yet, by node id. */
  readonly blocked: Map<string, number>;
  /** Nodes this process is working on now (a review re-running its target included). */
  readonly busy: Set<string>;
  /**
   * Settles when this run's last spawn request got its answer: a run queues one spawn at a time
   * in the topology's FIFO, so runs side by side take free slots in turn.
   */
  spawnTurn: Promise<unknown>;
  /** How long its records live past a write: `ttlMs` plus its longest wait (`recordTtlMs`). */
  readonly ttlMs: number;
  /** Set when a store operation failed inside a node; the drive loop stops with it. */
  failure: unknown;
  /** Wakes the drive loop. */
  wake(): void;
}
