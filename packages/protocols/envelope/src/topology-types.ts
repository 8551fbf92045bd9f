import type { EmitterOptions, Clock, IdGenerator, Unsubscribe } from '@parley/core';
import type { AgentDirectory, AgentInfo } from './directory.js';
import type { Envelope } from './envelope.js';
import type { TopologyRefusalCode } from './errors.js';
import { MAX_SPAWN_DEPTH } from './internal/frame.js';

/**
 * The limits of a spawn tree.
 *
 * @example
 * ```ts
 * import type { TopologyLimits } from '@parley/envelope';
 *
 * const limits: TopologyLimits = { maxSpawnDepth: 2, maxChildrenPerAgent: 5, maxConcurrent: 8 };
 * ```
 */
export interface TopologyLimits {
  /** Deepest spawn allowed: agents at this depth are leaves and cannot spawn. 1 to 5. */
  readonly maxSpawnDepth: number;
  /** Most children one agent may have running at once. 1 to 20. */
  readonly maxChildrenPerAgent: number;
  /** Most spawned runs (depth ≥ 1) running at once across the tree. At least 1. */
  readonly maxConcurrent: number;
}

/**
 * The reference protocol's limits: spawn depth 1 (children are leaves), 5 children per agent,
 * 8 concurrent runs.
 *
 * @example
 * ```ts
 * import { DEFAULT_TOPOLOGY_LIMITS } from '@parley/envelope';
 *
 * console.log(DEFAULT_TOPOLOGY_LIMITS.maxChildrenPerAgent); // 5
 * ```
 */
export const DEFAULT_TOPOLOGY_LIMITS = {
  maxSpawnDepth: 1,
  maxChildrenPerAgent: 5,
  maxConcurrent: 8,
} as const satisfies TopologyLimits;

/**
 * The most a topology may be configured to allow: spawn depth 5 and 20 children per agent.
 *
 * @example
 * ```ts
 * import { MAX_TOPOLOGY_LIMITS } from '@parley/envelope';
 *
 * console.log(MAX_TOPOLOGY_LIMITS.maxSpawnDepth); // 5
 * ```
 */
export const MAX_TOPOLOGY_LIMITS = { maxSpawnDepth: MAX_SPAWN_DEPTH, maxChildrenPerAgent: 20 } as const;

/**
 * A topology as plain JSON: every registered agent and channel, parents before children.
 *
 * @example
 * ```ts
 * import type { TopologySnapshot } from '@parley/envelope';
 *
 * const snapshot: TopologySnapshot = {
 *   version: 1,
 *   agents: [{ id: 'ceo', role: 'ceo', parent: null, depth: 0, kind: 'agent', startedAt: 0 }],
 * };
 * ```
 */
export interface TopologySnapshot {
  readonly version: 1;
  readonly agents: readonly AgentInfo[];
}

/**
 * Options for {@link createTopology}: limits (each defaulting to {@link DEFAULT_TOPOLOGY_LIMITS}),
 * ids, time, and a snapshot to resume from.
 *
 * @example
 * ```ts
 * import type { TopologyOptions } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 *
 * const options: TopologyOptions = { maxSpawnDepth: 2, clock: createManualClock(), generateId: createSequentialIds('run_') };
 * ```
 */
export interface TopologyOptions extends Partial<TopologyLimits>, EmitterOptions {
  /** Names spawned runs that come without an id; nanoid by default. */
  readonly generateId?: IdGenerator;
  /** Stamps `startedAt`; the system clock by default. */
  readonly clock?: Clock;
  /** Resume the tree a previous {@link Topology.snapshot} described. */
  readonly snapshot?: TopologySnapshot;
}

/**
 * A request to spawn a run under `parent`.
 *
 * @example
 * ```ts
 * import type { SpawnRequest } from '@parley/envelope';
 *
 * const request: SpawnRequest = { parent: 'quant_strategist', role: 'reviewer' };
 * ```
 */
export interface SpawnRequest {
  readonly parent: string;
  /** Generated when absent. */
  readonly id?: string;
  /** The id when absent. */
  readonly role?: string;
}

/**
 * Options of {@link Topology.spawnWhenFree}.
 *
 * @example
 * ```ts
 * import type { SpawnWaitOptions } from '@parley/envelope';
 *
 * const controller = new AbortController();
 * const options: SpawnWaitOptions = { signal: controller.signal };
 * ```
 */
export interface SpawnWaitOptions {
  /** Stops waiting: the promise rejects with `EnvelopeError` `cancelled`. */
  readonly signal?: AbortSignal;
}

/**
 * A topology's "no", with the facts (ids, limits) a host needs to act on it.
 *
 * @example
 * ```ts
 * import type { TopologyRefusal } from '@parley/envelope';
 *
 * const refusal: TopologyRefusal = {
 *   ok: false, code: 'lateral_message', message: 'Siblings never talk', details: { from: 'bull', to: 'bear' },
 * };
 * ```
 */
export interface TopologyRefusal {
  readonly ok: false;
  readonly code: TopologyRefusalCode;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * The result of {@link Topology.check} and {@link Topology.canSpawn}.
 *
 * @example
 * ```ts
 * import type { TopologyCheck } from '@parley/envelope';
 *
 * const allowed: TopologyCheck = { ok: true };
 * ```
 */
export type TopologyCheck = { readonly ok: true } | TopologyRefusal;

/**
 * The result of {@link Topology.spawn}.
 *
 * @example
 * ```ts
 * import type { SpawnResult } from '@parley/envelope';
 *
 * function runId(result: SpawnResult): string | undefined {
 *   return result.ok ? result.value.id : undefined;
 * }
 * ```
 */
export type SpawnResult = { readonly ok: true; readonly value: AgentInfo } | TopologyRefusal;

/**
 * What a topology reports: spawns, finished runs (a run and every descendant it had), refusals.
 *
 * @example
 * ```ts
 * import type { TopologyEvents } from '@parley/envelope';
 *
 * const onRefused = (event: TopologyEvents['refused']): string => `${event.action}: ${event.code}`;
 * ```
 */
export interface TopologyEvents {
  spawned: { readonly agent: AgentInfo };
  finished: { readonly id: string; readonly ids: readonly string[] };
  refused: {
    readonly action: 'spawn' | 'message';
    readonly code: TopologyRefusalCode;
    readonly message: string;
    readonly details: Readonly<Record<string, unknown>>;
  };
}

/**
 * The spawn tree at run time: who is running, under whom, at what depth, and who may message whom.
 *
 * @example
 * ```ts
 * import { createTopology, type Topology } from '@parley/envelope';
 *
 * const topology: Topology = createTopology({ maxSpawnDepth: 2 });
 * ```
 */
export interface Topology extends AgentDirectory {
  readonly limits: TopologyLimits;
  /**
   * Adds an independent (depth-0) agent, or a channel: a one-way sink such as a Discord channel.
   * @throws EnvelopeError `duplicate_agent` when the id is taken; `invalid_argument` for an empty or too long id or role.
   */
  register(participant: {
    readonly id: string;
    readonly role?: string;
    readonly kind?: 'agent' | 'channel';
  }): AgentInfo;
  /** Spawns a run under a parent, or refuses (`unknown_agent`, `not_an_agent`, `duplicate_agent`, `depth_exceeded`, `too_many_children`, `concurrency_exceeded`). */
  spawn(request: SpawnRequest): SpawnResult;
  /**
   * Spawns a run as soon as the limits allow, waiting in arrival order (FIFO) while the only
   * obstacle is `too_many_children` or `concurrency_exceeded`; the slot is claimed in the same step
   * that frees it (`finish`), so no other caller can take it in between. Any other refusal
   * (`unknown_agent`, `depth_exceeded`, a parent finished while waiting…) resolves at once, as
   * `spawn` would. Direct `spawn` calls are not queued: they succeed whenever a slot is free.
   * @throws EnvelopeError `cancelled` (a rejection, `cause` = `signal.reason`) when `signal` aborts,
   * before or while waiting; `invalid_argument` for an empty or too long id or role.
   */
  spawnWhenFree(request: SpawnRequest, options?: SpawnWaitOptions): Promise<SpawnResult>;
  /** How many `spawnWhenFree` calls are waiting for a slot. */
  waitingSpawns(): number;
  /**
   * Tells whether `parent` could spawn now, with the refusal `spawn` would give; emits nothing.
   *
   * A hint, not a reservation: checking, awaiting anything, then spawning races with every other
   * spawn in between. To wait for a slot, use {@link Topology.spawnWhenFree}, which claims it atomically.
   */
  canSpawn(parent: string): TopologyCheck;
  /** Removes a participant and every descendant; returns their ids (descendants first), `[]` when unknown. */
  finish(id: string): readonly string[];
  /** Tells whether an envelope may travel from its sender to its recipient. */
  check(envelope: Pick<Envelope, 'from' | 'to' | 'expect_response' | 'spawn_depth'>): TopologyCheck;
  /** The running children of an agent. */
  children(id: string): readonly AgentInfo[];
  /** Every participant, parents before children. */
  agents(): readonly AgentInfo[];
  /** How many spawned runs (depth ≥ 1) are running. */
  running(): number;
  /** The tree as plain JSON. */
  snapshot(): TopologySnapshot;
  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof TopologyEvents & string>(
    event: K,
    listener: (payload: TopologyEvents[K]) => void,
  ): Unsubscribe;
}
