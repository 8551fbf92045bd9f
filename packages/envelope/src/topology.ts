import {
  type Clock,
  createEmitter,
  type EmitterOptions,
  generateId,
  type IdGenerator,
  systemClock,
  type Unsubscribe,
} from '@parley/core';
import type { AgentDirectory, AgentInfo } from './directory.js';
import type { Envelope } from './envelope.js';
import { EnvelopeError, type TopologyRefusalCode } from './errors.js';
import { MAX_FIELD_LENGTH, MAX_SPAWN_DEPTH } from './internal/frame.js';
import { restoreAgents } from './internal/restore.js';

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
   * @throws EnvelopeError `duplicate_agent` when the id is taken; `invalid_option` for an empty or too long id or role.
   */
  register(participant: {
    readonly id: string;
    readonly role?: string;
    readonly kind?: 'agent' | 'channel';
  }): AgentInfo;
  /** Spawns a run under a parent, or refuses (`unknown_agent`, `not_an_agent`, `duplicate_agent`, `depth_exceeded`, `too_many_children`, `concurrency_exceeded`). */
  spawn(request: SpawnRequest): SpawnResult;
  /** Tells whether `parent` could spawn now, with the refusal `spawn` would give; emits nothing. */
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

/**
 * Creates a spawn tree that enforces the reference protocol's limits and messaging rules.
 *
 * Use one per host and route every envelope through `check`: blocking sends (`expect_response`)
 * only between depth-0 agents; children message only their parent (upward announce) and parents
 * only their own children; siblings never talk; depth-0 agents talk freely; channels only receive.
 *
 * @throws EnvelopeError `invalid_option` when a limit is out of range; `invalid_snapshot` when the
 * snapshot is malformed.
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 *
 * const topology = createTopology({ maxSpawnDepth: 2 });
 * topology.register({ id: 'ceo' });
 * const strategist = topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
 * const bull = topology.spawn({ parent: 'quant_strategist', id: 'bull' });
 * const bear = topology.spawn({ parent: 'quant_strategist', id: 'bear' });
 * console.log(strategist.ok && bull.ok && bear.ok); // true
 *
 * const envelope = { from: 'bull', to: 'quant_strategist', expect_response: false, spawn_depth: 2 };
 * console.log(topology.check(envelope).ok); // true
 * const lateral = topology.check({ ...envelope, to: 'bear' });
 * console.log(lateral.ok ? 'allowed' : lateral.code); // lateral_message
 * ```
 */
export function createTopology(options: TopologyOptions = {}): Topology {
  const limits: TopologyLimits = Object.freeze({
    maxSpawnDepth: limit(
      options.maxSpawnDepth,
      'maxSpawnDepth',
      DEFAULT_TOPOLOGY_LIMITS.maxSpawnDepth,
      MAX_SPAWN_DEPTH,
    ),
    maxChildrenPerAgent: limit(
      options.maxChildrenPerAgent,
      'maxChildrenPerAgent',
      DEFAULT_TOPOLOGY_LIMITS.maxChildrenPerAgent,
      MAX_TOPOLOGY_LIMITS.maxChildrenPerAgent,
    ),
    maxConcurrent: limit(
      options.maxConcurrent,
      'maxConcurrent',
      DEFAULT_TOPOLOGY_LIMITS.maxConcurrent,
      Number.MAX_SAFE_INTEGER,
    ),
  });
  const clock = options.clock ?? systemClock;
  const nextId = options.generateId ?? generateId;
  const events = createEmitter<TopologyEvents>(options);
  const nodes = new Map<string, { readonly info: AgentInfo; readonly children: Set<string> }>();
  let running = 0;

  function add(info: AgentInfo): AgentInfo {
    const frozen = Object.freeze({ ...info });
    nodes.set(info.id, { info: frozen, children: new Set() });
    if (info.parent !== null) {
      nodes.get(info.parent)?.children.add(info.id);
      running++;
    }
    return frozen;
  }

  if (options.snapshot !== undefined) for (const info of restoreAgents(options.snapshot)) add(info);

  function refuse(
    code: TopologyRefusalCode,
    message: string,
    details: Record<string, unknown>,
  ): TopologyRefusal {
    return { ok: false, code, message, details: Object.freeze(details) };
  }

  /** Emits a refusal of `spawn` or `check` (never of the `canSpawn` query) and returns it. */
  function report(action: 'spawn' | 'message', refusal: TopologyRefusal): TopologyRefusal {
    events.emit('refused', {
      action,
      code: refusal.code,
      message: refusal.message,
      details: refusal.details,
    });
    return refusal;
  }

  function spawnRefusal(parentId: string, id: string | undefined): TopologyRefusal | undefined {
    const parent = nodes.get(parentId);
    if (parent === undefined)
      return refuse('unknown_agent', `No agent "${parentId}" to spawn under`, { parent: parentId });
    if (parent.info.kind === 'channel') {
      return refuse('not_an_agent', `"${parentId}" is a channel and cannot spawn`, {
        parent: parentId,
      });
    }
    if (id !== undefined && nodes.has(id))
      return refuse('duplicate_agent', `The id "${id}" is taken`, { id });
    const depth = parent.info.depth + 1;
    if (depth > limits.maxSpawnDepth) {
      return refuse(
        'depth_exceeded',
        `A run at depth ${depth} exceeds maxSpawnDepth ${limits.maxSpawnDepth}`,
        {
          parent: parentId,
          depth,
          maxSpawnDepth: limits.maxSpawnDepth,
        },
      );
    }
    if (parent.children.size >= limits.maxChildrenPerAgent) {
      return refuse('too_many_children', `"${parentId}" already has ${parent.children.size} children`, {
        parent: parentId,
        children: parent.children.size,
        maxChildrenPerAgent: limits.maxChildrenPerAgent,
      });
    }
    if (running >= limits.maxConcurrent) {
      return refuse('concurrency_exceeded', `${running} runs are already running`, {
        parent: parentId,
        running,
        maxConcurrent: limits.maxConcurrent,
      });
    }
    return undefined;
  }

  function messageRefusal(
    envelope: Pick<Envelope, 'from' | 'to' | 'expect_response' | 'spawn_depth'>,
  ): TopologyRefusal | undefined {
    const { from, to } = envelope;
    const sender = nodes.get(from)?.info;
    const recipient = nodes.get(to)?.info;
    const facts = { from, to };
    if (sender === undefined) return refuse('unknown_agent', `The sender "${from}" is not running`, facts);
    if (recipient === undefined)
      return refuse('unknown_agent', `The recipient "${to}" is not running`, facts);
    if (sender.kind === 'channel')
      return refuse('not_an_agent', `"${from}" is a channel and cannot send`, facts);
    if (envelope.spawn_depth !== sender.depth) {
      return refuse(
        'depth_mismatch',
        `"${from}" runs at depth ${sender.depth}, not ${envelope.spawn_depth}`,
        {
          ...facts,
          depth: sender.depth,
          claimed: envelope.spawn_depth,
        },
      );
    }
    if (
      envelope.expect_response &&
      (sender.depth > 0 || recipient.depth > 0 || recipient.kind === 'channel')
    ) {
      return refuse('send_not_allowed', 'A blocking send is allowed only between depth-0 agents', facts);
    }
    if (recipient.kind === 'channel' || from === to) {
      return from === to ? refuse('not_parent', `"${from}" cannot message itself`, facts) : undefined;
    }
    if (sender.depth === 0 && recipient.depth === 0) return undefined;
    if (sender.parent === to || recipient.parent === from) return undefined;
    if (sender.parent !== null && sender.parent === recipient.parent) {
      return refuse('lateral_message', `"${from}" and "${to}" are siblings; siblings never talk`, facts);
    }
    return refuse('not_parent', `"${from}" and "${to}" are not parent and child`, facts);
  }

  function listChildren(id: string): AgentInfo[] {
    return [...(nodes.get(id)?.children ?? [])].map(
      (child) => (nodes.get(child) as { info: AgentInfo }).info,
    );
  }

  return {
    limits,
    agent: (id) => nodes.get(id)?.info,
    register(participant) {
      const id = name(participant.id, 'id');
      if (nodes.has(id))
        throw new EnvelopeError('duplicate_agent', `The id "${id}" is taken`, { details: { id } });
      const role = participant.role === undefined ? id : name(participant.role, 'role');
      const kind = participant.kind ?? 'agent';
      if (kind !== 'agent' && kind !== 'channel') {
        throw new EnvelopeError('invalid_option', 'kind must be "agent" or "channel"', {
          details: { kind: String(kind) },
        });
      }
      return add({ id, role, parent: null, depth: 0, kind, startedAt: clock.now() });
    },
    spawn(request) {
      const id = request.id === undefined ? undefined : name(request.id, 'id');
      const role = request.role === undefined ? undefined : name(request.role, 'role');
      const refusal = spawnRefusal(request.parent, id);
      if (refusal !== undefined) return report('spawn', refusal);
      const parent = (nodes.get(request.parent) as { info: AgentInfo }).info; // spawnRefusal proved it exists
      const runId = id ?? uniqueId();
      const agent = add({
        id: runId,
        role: role ?? runId,
        parent: parent.id,
        depth: parent.depth + 1,
        kind: 'agent',
        startedAt: clock.now(),
      });
      events.emit('spawned', { agent });
      return { ok: true, value: agent };
    },
    canSpawn: (parent) => spawnRefusal(parent, undefined) ?? { ok: true },
    finish(id) {
      const node = nodes.get(id);
      if (node === undefined) return [];
      const ids: string[] = [];
      const remove = (current: string): void => {
        const entry = nodes.get(current) as { info: AgentInfo; children: Set<string> };
        for (const child of entry.children) remove(child);
        nodes.delete(current);
        if (entry.info.parent !== null) running--;
        ids.push(current);
      };
      remove(id);
      if (node.info.parent !== null) nodes.get(node.info.parent)?.children.delete(id);
      events.emit('finished', { id, ids: Object.freeze(ids) });
      return ids;
    },
    check(envelope) {
      const refusal = messageRefusal(envelope);
      return refusal === undefined ? { ok: true } : report('message', refusal);
    },
    children: listChildren,
    agents: () => [...nodes.values()].map((node) => node.info),
    running: () => running,
    snapshot: () => ({ version: 1, agents: [...nodes.values()].map((node) => ({ ...node.info })) }),
    on: (event, listener) => events.on(event, listener),
  };

  function uniqueId(): string {
    let id = nextId();
    while (nodes.has(id)) id = nextId(); // a generator that repeats must not overwrite a run
    return id;
  }
}

function limit(value: number | undefined, key: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new EnvelopeError(
      'invalid_option',
      `${key} must be an integer from 1 to ${max}, got ${String(value)}`,
      {
        details: { [key]: value },
      },
    );
  }
  return value;
}

function name(value: unknown, key: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FIELD_LENGTH) {
    throw new EnvelopeError('invalid_option', `${key} must be 1 to ${MAX_FIELD_LENGTH} characters`, {
      details: { [key]: typeof value === 'string' ? value.slice(0, 64) : String(value) },
    });
  }
  return value;
}
