// An attempt's slot in the spawn tree, as pure rules: which run it asks the envelope topology for,
// and what the topology's answer (its limits: depth, children, concurrency) means for the attempt.
// The Store runner and @parley/restate both ask through these.
import { isParleyError } from '@parley/core';
import type { SpawnResult } from '@parley/envelope';

/**
 * The run an attempt asks the spawn tree for: `id` under `parent` in `role`, the node's
 * `spawn`-th.
 *
 * @example
 * ```ts
 * import type { AttemptSpawn } from '@parley/pipeline';
 *
 * const ask: AttemptSpawn = { parent: 'quant_strategist', id: 'r1/bull-1', role: 'bullish_researcher', spawn: 1 };
 * ```
 */
export interface AttemptSpawn {
  readonly parent: string;
  readonly id: string;
  readonly role: string;
  readonly spawn: number;
}

/**
 * What an attempt's run does with the topology's answer: run at `depth`, or fail with `refused`
 * (a limit, an unknown parent, an id or role the tree cannot take), or stop (the wait for a slot
 * was cancelled).
 *
 * @example
 * ```ts
 * import type { SpawnVerdict } from '@parley/pipeline';
 *
 * const verdict: SpawnVerdict = { ok: false, kind: 'refused', message: 'depth_exceeded: too deep' };
 * ```
 */
export type SpawnVerdict =
  | { readonly ok: true; readonly depth: number }
  | { readonly ok: false; readonly kind: 'refused' | 'stopped'; readonly message: string };

/**
 * Says which run in the spawn tree the next attempt of `node` asks for, purely: a `spawn` node
 * (the default action) takes one slot per attempt under the run's parent (or the pipeline's
 * owner), named by `spawnId` (`<runId>/<node>-<n>` by default) with `n` one past the node's
 * stored `spawns`; a `self` node runs as that agent and asks for nothing (`undefined`).
 *
 * The Store runner asks its topology with it (`spawnWhenFree`), and `@parley/restate` does the
 * same inside a journaled step, so the limits hold the same way on both.
 *
 * @example
 * ```ts
 * import { attemptSpawn } from '@parley/pipeline';
 *
 * const node = { id: 'bull', agent: 'bullish_researcher' };
 * console.log(attemptSpawn({ runId: 'r1', node, spawns: 0, parent: 'quant_strategist' }));
 * // { parent: 'quant_strategist', id: 'r1/bull-1', role: 'bullish_researcher', spawn: 1 }
 * console.log(attemptSpawn({ runId: 'r1', node: { ...node, action: 'self' }, spawns: 0, parent: 'x' })); // undefined
 * ```
 */
export function attemptSpawn(input: {
  readonly runId: string;
  readonly node: {
    readonly id: string;
    readonly agent: string;
    readonly action?: 'spawn' | 'self' | undefined;
  };
  /** The node record's `spawns` so far. */
  readonly spawns: number;
  /** The run's parent, or the pipeline's owner. */
  readonly parent: string | undefined;
  readonly spawnId?:
    | ((info: { readonly runId: string; readonly node: string; readonly spawn: number }) => string)
    | undefined;
}): AttemptSpawn | undefined {
  const { runId, node } = input;
  if (node.action === 'self') return undefined;
  const spawn = input.spawns + 1;
  const id = input.spawnId?.({ runId, node: node.id, spawn }) ?? `${runId}/${node.id}-${spawn}`;
  return { parent: input.parent ?? '', id, role: node.agent, spawn };
}

/**
 * Reads the topology's answer to an attempt's spawn, purely: a spawned run's depth, or the
 * attempt's failure, `refused` with `<code>: <message>` (`depth_exceeded`, `too_many_children`…,
 * or the error the tree threw for a request it cannot take), or `stopped` when the wait for a
 * slot was cancelled. A refused attempt fails under the node's failure policy for `refused`.
 *
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import { spawnVerdict } from '@parley/pipeline';
 *
 * const topology = createTopology({ maxSpawnDepth: 1 });
 * topology.register({ id: 'ceo' });
 * console.log(spawnVerdict(topology.spawn({ parent: 'ceo', id: 'lead' }))); // { ok: true, depth: 1 }
 * const refused = spawnVerdict(topology.spawn({ parent: 'lead', id: 'intern' }));
 * console.log(refused.ok ? refused.depth : refused.message); // depth_exceeded: A run at depth 2 exceeds maxSpawnDepth 1
 * ```
 */
export function spawnVerdict(answer: SpawnResult | { readonly thrown: unknown }): SpawnVerdict {
  if ('thrown' in answer) {
    const error = answer.thrown;
    if (isParleyError(error, 'cancelled')) return { ok: false, kind: 'stopped', message: 'cancelled' };
    return { ok: false, kind: 'refused', message: error instanceof Error ? error.message : String(error) };
  }
  if (answer.ok) return { ok: true, depth: answer.value.depth };
  return { ok: false, kind: 'refused', message: `${answer.code}: ${answer.message}` };
}
