/**
 * The session tools of the reference protocol: spawn a run, send and wait for a reply (blocking),
 * manage sub-agents, list sessions, read a session's history.
 *
 * @example
 * ```ts
 * import { SESSION_TOOLS } from '@parley/pipeline';
 *
 * console.log(SESSION_TOOLS.includes('sessions_send')); // true
 * ```
 */
export const SESSION_TOOLS = [
  'sessions_spawn',
  'sessions_send',
  'subagents',
  'sessions_list',
  'sessions_history',
] as const;

/**
 * One of {@link SESSION_TOOLS}.
 *
 * @example
 * ```ts
 * import type { SessionTool } from '@parley/pipeline';
 *
 * const tool: SessionTool = 'sessions_spawn';
 * ```
 */
export type SessionTool = (typeof SESSION_TOOLS)[number];

/** What a depth-1 agent that may still spawn gets: everything but the blocking send. */
const SPAWNING: readonly SessionTool[] = Object.freeze([
  'sessions_spawn',
  'subagents',
  'sessions_list',
  'sessions_history',
]);
const NONE: readonly SessionTool[] = Object.freeze([]);

/**
 * The session tools an agent at `depth` may use under `maxSpawnDepth`, as the reference table
 * (agent-collaboration §4.2) says: a depth-0 agent has all of them; a spawned agent never has
 * `sessions_send`; one above the deepest level spawns and manages its runs (`sessions_spawn`,
 * `subagents`, `sessions_list`, `sessions_history`); one at the deepest level is a leaf with none.
 *
 * Use it (or a function of the same shape as `sessionTools` of the runner) to decide which session
 * tools to hand a node's agent: `ctx.tools` holds the answer for each attempt.
 *
 * @example
 * ```ts
 * import { sessionToolsAt } from '@parley/pipeline';
 *
 * console.log(sessionToolsAt(1, 1)); // []
 * console.log(sessionToolsAt(1, 2)); // ['sessions_spawn', 'subagents', 'sessions_list', 'sessions_history']
 * console.log(sessionToolsAt(2, 2)); // []
 * ```
 */
export function sessionToolsAt(depth: number, maxSpawnDepth: number): readonly SessionTool[] {
  if (depth <= 0) return SESSION_TOOLS;
  return depth < maxSpawnDepth ? SPAWNING : NONE;
}
