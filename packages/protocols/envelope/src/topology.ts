import { createEmitter, generateId, systemClock } from '@parley/core';
import type { AgentInfo } from './directory.js';
import { EnvelopeError } from './errors.js';
import { restoreAgents } from './internal/restore.js';
import { drain, spawnWhenFree } from './internal/spawn-wait.js';
import { name, names, topologyLimits } from './internal/topology-options.js';
import { messageRefusal, spawnRefusal } from './internal/topology-rules.js';
import { addAgent, removeRun, report, startRun, type TopologyState } from './internal/topology-state.js';
import type { Topology, TopologyEvents, TopologyOptions } from './topology-types.js';

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
  const state: TopologyState = {
    limits: topologyLimits(options),
    clock: options.clock ?? systemClock,
    nextId: options.generateId ?? generateId,
    events: createEmitter<TopologyEvents>(options),
    nodes: new Map(),
    running: 0,
    waiters: [],
    draining: false,
  };
  const { nodes, events } = state;
  if (options.snapshot !== undefined) {
    for (const info of restoreAgents(options.snapshot)) addAgent(state, info);
  }

  return {
    limits: state.limits,
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
      return addAgent(state, { id, role, parent: null, depth: 0, kind, startedAt: state.clock.now() });
    },
    spawn(request) {
      const { id, role } = names(request);
      const refusal = spawnRefusal(state, request.parent, id);
      if (refusal !== undefined) return report(state, 'spawn', refusal);
      return { ok: true, value: startRun(state, request.parent, id, role) };
    },
    spawnWhenFree: (request, waitOptions = {}) => spawnWhenFree(state, request, waitOptions),
    waitingSpawns: () => state.waiters.length,
    canSpawn: (parent) => spawnRefusal(state, parent, undefined) ?? { ok: true },
    finish(id) {
      const node = nodes.get(id);
      if (node === undefined) return [];
      const ids = removeRun(state, id, node);
      events.emit('finished', { id, ids: Object.freeze(ids) });
      drain(state);
      return ids;
    },
    check(envelope) {
      const refusal = messageRefusal(nodes, envelope);
      return refusal === undefined ? { ok: true } : report(state, 'message', refusal);
    },
    children: (id) =>
      [...(nodes.get(id)?.children ?? [])].map((child) => (nodes.get(child) as { info: AgentInfo }).info),
    agents: () => [...nodes.values()].map((node) => node.info),
    running: () => state.running,
    snapshot: () => ({ version: 1, agents: [...nodes.values()].map((node) => ({ ...node.info })) }),
    on: (event, listener) => events.on(event, listener),
  };
}
