import { isParleyError } from '@parley/core';
import type { DetectContext, Detector } from '../detector.js';
import { ConflictError } from '../errors.js';
import type { Conflict, FailedCall, Proposal } from '../types.js';
import type { Sorted } from './effects.js';

/** At most this many conflicts of one attempt are kept; a last entry counts the rest. */
const MAX_CONFLICTS_PER_ATTEMPT = 20;

export function capConflicts(conflicts: readonly Conflict[]): readonly Conflict[] {
  if (conflicts.length <= MAX_CONFLICTS_PER_ATTEMPT) return conflicts;
  const kept = conflicts.slice(0, MAX_CONFLICTS_PER_ATTEMPT - 1);
  const more = conflicts.length - kept.length;
  return [
    ...kept,
    {
      detector: 'conflict_limit',
      expected_state_snippet: null,
      mismatch_reason: `${more} more conflicts were found in this output and left out`,
      instructions:
        'Fix every conflict listed above; the same mistakes are repeated further on in the output.',
    },
  ];
}

export function reusedId(entry: Sorted['reused'][number]): FailedCall {
  return {
    id: entry.call.id,
    tool: entry.call.tool,
    status: 'rejected',
    reason: `The id "${entry.call.id}" already stood for another call (${entry.tool}) in attempt ${entry.attempt}; give this call a new id.`,
    code: 'call_id_reused',
  };
}

export async function detectWith<TState>(
  detector: Detector<TState>,
  proposal: Proposal,
  state: TState,
  context: DetectContext,
): ReturnType<Detector<TState>['detect']> {
  try {
    return await detector.detect(proposal, state, context);
  } catch (error) {
    if (isParleyError(error, 'detector_failed')) throw error;
    throw new ConflictError('detector_failed', `Detector "${detector.name}" threw`, {
      cause: error,
      details: { detector: detector.name },
    });
  }
}

export function checkDetectors<TState>(detectors: readonly Detector<TState>[]): readonly Detector<TState>[] {
  if (!Array.isArray(detectors)) {
    throw new ConflictError('invalid_argument', 'detectors must be a list made with defineDetector');
  }
  const names = new Set<string>();
  for (const detector of detectors) {
    if (typeof detector?.name !== 'string' || typeof detector.detect !== 'function') {
      throw new ConflictError('invalid_argument', 'Every detector must be made with defineDetector');
    }
    if (names.has(detector.name)) {
      throw new ConflictError('invalid_argument', `Two detectors are named "${detector.name}"`, {
        details: { detector: detector.name },
      });
    }
    names.add(detector.name);
  }
  return [...detectors];
}
