import { clip, REPLY_LIMITS } from './reply-limits.js';
import { createEmitter, generateId, systemClock } from '@parley/core';
import type { AgentInfo } from './directory.js';
import type { Envelope } from './envelope.js';
import { EnvelopeError, type TopologyRefusalCode } from './errors.js';
import { MAX_FIELD_LENGTH, MAX_SPAWN_DEPTH } from './internal/frame.js';
import { restoreAgents } from './internal/restore.js';
import {
  DEFAULT_TOPOLOGY_LIMITS,
  MAX_TOPOLOGY_LIMITS,
  type Topology,
  type TopologyEvents,
  type TopologyLimits,
  type TopologyOptions,
  type TopologyRefusal,
  type SpawnRequest,
  type SpawnResult,
} from './topology-types.js';

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
  const waiters: Waiter[] = [];
  let draining = false;

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
    // Ids come from the caller's (possibly a peer's) input: echoes are cut to REPLY_LIMITS.
    for (const [key, value] of Object.entries(details)) {
      if (typeof value === 'string') details[key] = clip(value);
    }
    return {
      ok: false,
      code,
      message: clip(message, 4 * REPLY_LIMITS.maxTextLength),
      details: Object.freeze(details),
    };
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
      const { id, role } = names(request);
      const refusal = spawnRefusal(request.parent, id);
      if (refusal !== undefined) return report('spawn', refusal);
      return { ok: true, value: start(request.parent, id, role) };
    },
    spawnWhenFree(request, waitOptions = {}) {
      let named: { readonly id: string | undefined; readonly role: string | undefined };
      try {
        named = names(request);
      } catch (error) {
        return Promise.reject(error);
      }
      const { signal } = waitOptions;
      if (signal?.aborted === true) return Promise.reject(cancelled(signal));
      const refusal = spawnRefusal(request.parent, named.id);
      if (refusal === undefined) {
        return Promise.resolve({ ok: true, value: start(request.parent, named.id, named.role) });
      }
      if (!WAITABLE.has(refusal.code)) return Promise.resolve(report('spawn', refusal));
      return new Promise<SpawnResult>((resolve, reject) => {
        const waiter: Waiter = { parent: request.parent, ...named, resolve, reject, signal };
        if (signal !== undefined) {
          waiter.onAbort = () => {
            waiters.splice(waiters.indexOf(waiter), 1);
            reject(cancelled(signal));
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        waiters.push(waiter);
      });
    },
    waitingSpawns: () => waiters.length,
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
      drain();
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

  /** Adds a run the limits allow (the caller checked `spawnRefusal`) and reports it. */
  function start(parentId: string, id: string | undefined, role: string | undefined): AgentInfo {
    const parent = (nodes.get(parentId) as { info: AgentInfo }).info;
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
    return agent;
  }

  /** Gives freed slots to waiting spawns in arrival order; settles those that can never spawn. */
  function drain(): void {
    if (draining) return; // a listener finishing a run mid-drain: the loop below sees the slot
    draining = true;
    for (let i = 0; i < waiters.length; ) {
      const waiter = waiters[i] as Waiter;
      const refusal = spawnRefusal(waiter.parent, waiter.id);
      if (refusal !== undefined && WAITABLE.has(refusal.code)) {
        i++;
        continue;
      }
      waiters.splice(i, 1);
      if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(
        refusal === undefined
          ? { ok: true, value: start(waiter.parent, waiter.id, waiter.role) }
          : report('spawn', refusal),
      );
      i = 0; // what just happened may have freed or taken slots for earlier waiters
    }
    draining = false;
  }

  function uniqueId(): string {
    let id = nextId();
    while (nodes.has(id)) id = nextId(); // a generator that repeats must not overwrite a run
    return id;
  }
}

/** The refusals that a finished run can lift, so `spawnWhenFree` waits them out. */
const WAITABLE: ReadonlySet<TopologyRefusalCode> = new Set(['too_many_children', 'concurrency_exceeded']);

interface Waiter {
  readonly parent: string;
  readonly id: string | undefined;
  readonly role: string | undefined;
  readonly resolve: (result: SpawnResult) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort?: () => void;
}

function names(request: SpawnRequest): {
  readonly id: string | undefined;
  readonly role: string | undefined;
} {
  return {
    id: request.id === undefined ? undefined : name(request.id, 'id'),
    role: request.role === undefined ? undefined : name(request.role, 'role'),
  };
}

function cancelled(signal: AbortSignal): EnvelopeError {
  return new EnvelopeError('cancelled', 'The wait for a spawn slot was cancelled', { cause: signal.reason });
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
