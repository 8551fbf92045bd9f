import { createEmitter, generateId, systemClock } from '@parley/core';
import type { AgentInfo } from './directory.js';
import { EnvelopeError } from './errors.js';
import { restoreAgents } from './internal/restore.js';
import { name, names, topologyLimits } from './internal/topology-options.js';
import {
  messageRefusal,
  spawnRefusal,
  type TopologyNode,
  type TopologyView,
  WAITABLE,
} from './internal/topology-rules.js';
import type {
  SpawnResult,
  Topology,
  TopologyEvents,
  TopologyOptions,
  TopologyRefusal,
} from './topology-types.js';

/**
 * Creates a spawn tree that enforces the reference protocol's limits and messaging rules.
 *
 * Use one per host and route every envelope through `check`: blocking sends (`expect_response`)
 * only between depth-0 agents; children message only their parent (upward announce) and parents
 * only their own children; siblings never talk; depth-0 agents talk freely; channels only receive.
 *
 * @throws EnvelopeError `invalid_argument` when a limit is out of range; `invalid_snapshot` when the
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
  const limits = topologyLimits(options);
  const clock = options.clock ?? systemClock;
  const nextId = options.generateId ?? generateId;
  const events = createEmitter<TopologyEvents>(options);
  const nodes = new Map<string, TopologyNode>();
  let running = 0;
  const waiters: Waiter[] = [];
  let draining = false;

  const view = (): TopologyView => ({ nodes, running, limits });

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
        throw new EnvelopeError('invalid_argument', 'kind must be "agent" or "channel"', {
          details: { kind: String(kind) },
        });
      }
      return add({ id, role, parent: null, depth: 0, kind, startedAt: clock.now() });
    },
    spawn(request) {
      const { id, role } = names(request);
      const refusal = spawnRefusal(view(), request.parent, id);
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
      const refusal = spawnRefusal(view(), request.parent, named.id);
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
    canSpawn: (parent) => spawnRefusal(view(), parent, undefined) ?? { ok: true },
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
      const refusal = messageRefusal(nodes, envelope);
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
      const refusal = spawnRefusal(view(), waiter.parent, waiter.id);
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

interface Waiter {
  readonly parent: string;
  readonly id: string | undefined;
  readonly role: string | undefined;
  readonly resolve: (result: SpawnResult) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort?: () => void;
}

function cancelled(signal: AbortSignal): EnvelopeError {
  return new EnvelopeError('cancelled', 'The wait for a spawn slot was cancelled', { cause: signal.reason });
}
