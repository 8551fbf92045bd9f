import type { Clock } from '@parley/core';
import type { DisabledTool } from '../disabled-tool.js';
import { ToolsError } from '../errors.js';
import type { DisableUntil } from '../types.js';
import { checkUntil } from './options.js';

// The tools a gate has disabled, until a time or a turn.

/** A gate's disabled tools. */
export interface DisabledTools {
  /** The entry disabling `tool` at `turn`, if any; an entry whose time has passed is dropped. */
  active(tool: string, turn: number | undefined): DisabledTool | undefined;
  /** Disables a known tool until a checked time or turn, and reports it. */
  disable(tool: string, until: DisableUntil, reason: string): void;
  enable(tool: string): boolean;
  /** The entries active at `turn` (any turn when omitted). */
  list(turn: number | undefined): DisabledTool[];
  /** Every entry, as plain JSON for a snapshot. */
  toSnapshot(): DisabledTool[];
  /** Replaces every entry (from a checked snapshot). */
  load(entries: readonly DisabledTool[]): void;
  clear(): void;
}

/** The disabled tools of a gate over `known` tool names; `disable` reports through `onDisabled`. */
export function createDisabledTools(
  known: ReadonlyMap<string, unknown>,
  clock: Clock,
  onDisabled: (entry: DisabledTool) => void,
): DisabledTools {
  const entries = new Map<string, DisabledTool>();
  const isActive = (entry: DisabledTool, turn: number | undefined): boolean =>
    'at' in entry.until ? clock.now() < entry.until.at : turn === undefined || turn < entry.until.turn;
  return {
    active(tool, turn) {
      const entry = entries.get(tool);
      if (entry === undefined) return undefined;
      if (isActive(entry, turn)) return entry;
      if ('at' in entry.until) entries.delete(tool); // a time only moves forward; turns may be replayed
      return undefined;
    },
    disable(tool, until, reason) {
      if (!known.has(tool)) {
        throw new ToolsError('invalid_argument', `There is no tool named "${String(tool)}" to disable`, {
          details: { tool: String(tool) },
        });
      }
      const checked = checkUntil(until);
      const entry: DisabledTool = { tool, until: checked, reason: typeof reason === 'string' ? reason : '' };
      entries.set(tool, entry);
      onDisabled(entry);
    },
    enable: (tool) => entries.delete(tool),
    list: (turn) => [...entries.values()].filter((entry) => isActive(entry, turn)),
    // checked when disabled
    toSnapshot: () =>
      [...entries.values()].map(({ tool, until, reason }) => ({ tool, until: { ...until }, reason })),
    load(loaded) {
      entries.clear();
      for (const entry of loaded) entries.set(entry.tool, entry);
    },
    clear: () => entries.clear(),
  };
}
