import type { AgentInfo } from '../directory.js';
import { EnvelopeError } from '../errors.js';
import { MAX_FIELD_LENGTH, MAX_SPAWN_DEPTH } from './frame.js';

/** Checks a topology snapshot (parents before children, depths consistent) and returns its agents. */
export function restoreAgents(snapshot: unknown): AgentInfo[] {
  const agents = (snapshot as { agents?: unknown } | null)?.agents;
  if ((snapshot as { version?: unknown } | null)?.version !== 1 || !Array.isArray(agents)) {
    throw bad('A topology snapshot is { version: 1, agents: [...] }', {});
  }
  const seen = new Map<string, AgentInfo>();
  agents.forEach((raw: unknown, index: number) => {
    const a = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const parent = a.parent === null ? undefined : seen.get(a.parent as string);
    const sound =
      isName(a.id) &&
      !seen.has(a.id) &&
      isName(a.role) &&
      (a.kind === 'agent' || a.kind === 'channel') &&
      typeof a.startedAt === 'number' &&
      Number.isFinite(a.startedAt) &&
      (a.parent === null
        ? a.depth === 0
        : parent !== undefined &&
          parent.kind === 'agent' &&
          a.kind === 'agent' &&
          a.depth === parent.depth + 1) &&
      (a.depth as number) <= MAX_SPAWN_DEPTH;
    if (!sound) throw bad(`Agent ${index} of the snapshot is malformed or out of order`, { index });
    const info = a as unknown as AgentInfo; // every field was checked just above
    seen.set(info.id, { ...info });
  });
  return [...seen.values()];
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_FIELD_LENGTH;
}

function bad(message: string, details: Record<string, unknown>): EnvelopeError {
  return new EnvelopeError('invalid_snapshot', message, { details });
}
