import type { AgentInfo } from '../directory.js';
import type { Envelope } from '../envelope.js';
import type { TopologyRefusalCode } from '../errors.js';
import { clip, REPLY_LIMITS } from '../reply-limits.js';
import type { TopologyLimits, TopologyRefusal } from '../topology-types.js';

/** One run in the spawn tree: its facts and the ids of its live children. */
export interface TopologyNode {
  readonly info: AgentInfo;
  readonly children: Set<string>;
}

/** The tree as the rules read it: every run by id, and how many runs are counted as running. */
export interface TopologyView {
  readonly nodes: ReadonlyMap<string, TopologyNode>;
  readonly running: number;
  readonly limits: TopologyLimits;
}

/** The refusals that a finished run can lift, so `spawnWhenFree` waits them out. */
export const WAITABLE: ReadonlySet<TopologyRefusalCode> = new Set([
  'too_many_children',
  'concurrency_exceeded',
]);

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

/** Why a run may not start under `parentId` (with the id `id`, when one is asked for), or `undefined`. */
export function spawnRefusal(
  view: TopologyView,
  parentId: string,
  id: string | undefined,
): TopologyRefusal | undefined {
  const { nodes, limits, running } = view;
  const parent = nodes.get(parentId);
  if (parent === undefined)
    return refuse('unknown_agent', `No agent "${parentId}" to spawn under`, { parent: parentId });
  if (parent.info.kind === 'channel') {
    return refuse('not_an_agent', `"${parentId}" is a channel and cannot spawn`, {
      parent: parentId,
    });
  }
  if (id !== undefined && nodes.has(id)) return refuse('duplicate_agent', `The id "${id}" is taken`, { id });
  const depth = parent.info.depth + 1;
  if (depth > limits.maxSpawnDepth) {
    return refuse('depth_exceeded', `A run at depth ${depth} exceeds maxSpawnDepth ${limits.maxSpawnDepth}`, {
      parent: parentId,
      depth,
      maxSpawnDepth: limits.maxSpawnDepth,
    });
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

/** Why the tree forbids this message, or `undefined` when it allows it. */
export function messageRefusal(
  nodes: ReadonlyMap<string, TopologyNode>,
  envelope: Pick<Envelope, 'from' | 'to' | 'expect_response' | 'spawn_depth'>,
): TopologyRefusal | undefined {
  const { from, to } = envelope;
  const sender = nodes.get(from)?.info;
  const recipient = nodes.get(to)?.info;
  const facts = { from, to };
  if (sender === undefined) return refuse('unknown_agent', `The sender "${from}" is not running`, facts);
  if (recipient === undefined) return refuse('unknown_agent', `The recipient "${to}" is not running`, facts);
  if (sender.kind === 'channel')
    return refuse('not_an_agent', `"${from}" is a channel and cannot send`, facts);
  if (envelope.spawn_depth !== sender.depth) {
    return refuse('depth_mismatch', `"${from}" runs at depth ${sender.depth}, not ${envelope.spawn_depth}`, {
      ...facts,
      depth: sender.depth,
      claimed: envelope.spawn_depth,
    });
  }
  if (envelope.expect_response && (sender.depth > 0 || recipient.depth > 0 || recipient.kind === 'channel')) {
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
