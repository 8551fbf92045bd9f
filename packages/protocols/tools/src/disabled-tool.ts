import type { DisableUntil } from './types.js';

/**
 * A disabled tool, as {@link ToolGate.disabled} lists it.
 *
 * @example
 * ```ts
 * import type { DisabledTool } from '@parley/tools';
 *
 * const entry: DisabledTool = { tool: 'move', until: { turn: 5 }, reason: 'rooted' };
 * ```
 */
export interface DisabledTool {
  readonly tool: string;
  readonly until: DisableUntil;
  readonly reason: string;
}
