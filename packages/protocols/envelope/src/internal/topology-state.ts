import type { Clock, Emitter, IdGenerator } from '@parley/core';
import type { AgentInfo } from '../directory.js';
import type { SpawnResult, TopologyEvents, TopologyLimits, TopologyRefusal } from '../topology-types.js';
import type { TopologyNode, TopologyView } from './topology-rules.js';

/** What one topology holds: the tree of agents and runs, the count of runs, and the spawns waiting. */
export interface TopologyState extends TopologyView {
  readonly nodes: Map<string, TopologyNode>;
  running: number;
  readonly limits: TopologyLimits;
  readonly clock: Clock;
  readonly nextId: IdGenerator;
  readonly events: Emitter<TopologyEvents>;
  readonly waiters: SpawnWaiter[];
  draining: boolean;
}

/** A `spawnWhenFree` call waiting for a slot. */
export interface SpawnWaiter {
  readonly parent: string;
  readonly id: string | undefined;
  readonly role: string | undefined;
  readonly resolve: (result: SpawnResult) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort?: () => void;
}

/** Adds an agent (a run when it has a parent) to the tree; returns its frozen info. */
export function addAgent(state: TopologyState, info: AgentInfo): AgentInfo {
  const frozen = Object.freeze({ ...info });
  state.nodes.set(info.id, { info: frozen, children: new Set() });
  if (info.parent !== null) {
    state.nodes.get(info.parent)?.children.add(info.id);
    state.running++;
  }
  return frozen;
}

/** Emits a refusal of `spawn` or `check` (never of the `canSpawn` query) and returns it. */
export function report(
  state: TopologyState,
  action: 'spawn' | 'message',
  refusal: TopologyRefusal,
): TopologyRefusal {
  state.events.emit('refused', {
    action,
    code: refusal.code,
    message: refusal.message,
    details: refusal.details,
  });
  return refusal;
}

/** Adds a run the limits allow (the caller checked `spawnRefusal`) and reports it. */
export function startRun(
  state: TopologyState,
  parentId: string,
  id: string | undefined,
  role: string | undefined,
): AgentInfo {
  const parent = (state.nodes.get(parentId) as { info: AgentInfo }).info;
  const runId = id ?? uniqueId(state);
  const agent = addAgent(state, {
    id: runId,
    role: role ?? runId,
    parent: parent.id,
    depth: parent.depth + 1,
    kind: 'agent',
    startedAt: state.clock.now(),
  });
  state.events.emit('spawned', { agent });
  return agent;
}

/** Removes a run and everything under it; returns the ids removed, deepest first. */
export function removeRun(state: TopologyState, id: string, node: TopologyNode): string[] {
  const { nodes } = state;
  const ids: string[] = [];
  const remove = (current: string): void => {
    const entry = nodes.get(current) as { info: AgentInfo; children: Set<string> };
    for (const child of entry.children) remove(child);
    nodes.delete(current);
    if (entry.info.parent !== null) state.running--;
    ids.push(current);
  };
  remove(id);
  if (node.info.parent !== null) nodes.get(node.info.parent)?.children.delete(id);
  return ids;
}

function uniqueId(state: TopologyState): string {
  let id = state.nextId();
  while (state.nodes.has(id)) id = state.nextId(); // a generator that repeats must not overwrite a run
  return id;
}
