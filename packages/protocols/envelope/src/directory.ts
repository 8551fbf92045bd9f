/**
 * What a directory knows about one participant: its role, its parent and its spawn depth.
 *
 * @example
 * ```ts
 * import type { AgentInfo } from '@parley/envelope';
 *
 * const info: AgentInfo = {
 *   id: 'bull_1',
 *   role: 'bullish_researcher',
 *   parent: 'quant_strategist',
 *   depth: 2,
 *   kind: 'agent',
 *   startedAt: 0,
 * };
 * ```
 */
export interface AgentInfo {
  readonly id: string;
  /** The role direction rules name (`reviewer`, `ceo`…); the id when none was given. */
  readonly role: string;
  /** The id of the agent that spawned it; `null` for a depth-0 agent or a channel. */
  readonly parent: string | null;
  /** Spawn depth: 0 for an independent agent, parent's depth + 1 for a spawned run. */
  readonly depth: number;
  /** `channel` for a one-way sink such as a Discord channel, which never sends or spawns. */
  readonly kind: 'agent' | 'channel';
  /** When it was registered or spawned (epoch ms). */
  readonly startedAt: number;
}

/**
 * Looks participants up by id; the codec uses one to enforce intent directions. A
 * {@link Topology} is a directory, and a host may supply its own.
 *
 * @example
 * ```ts
 * import type { AgentDirectory, AgentInfo } from '@parley/envelope';
 *
 * const agents = new Map<string, AgentInfo>();
 * const directory: AgentDirectory = { agent: (id) => agents.get(id) };
 * ```
 */
export interface AgentDirectory {
  /** The participant with this id, or `undefined` when none is known. */
  agent(id: string): AgentInfo | undefined;
}
