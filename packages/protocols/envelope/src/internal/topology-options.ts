import { EnvelopeError } from '../errors.js';
import { MAX_FIELD_LENGTH, MAX_SPAWN_DEPTH } from './frame.js';
import {
  DEFAULT_TOPOLOGY_LIMITS,
  MAX_TOPOLOGY_LIMITS,
  type SpawnRequest,
  type TopologyLimits,
  type TopologyOptions,
} from '../topology-types.js';

/**
 * The limits a topology runs with: each given one checked against its range, the others defaulted.
 * @throws EnvelopeError `invalid_argument` when a limit is out of range.
 */
export function topologyLimits(options: TopologyOptions): TopologyLimits {
  return Object.freeze({
    maxSpawnDepth: limit(
      options.maxSpawnDepth,
      'maxSpawnDepth',
      DEFAULT_TOPOLOGY_LIMITS.maxSpawnDepth,
      MAX_SPAWN_DEPTH,
    ),
    maxChildrenPerAgent: limit(
      options.maxChildrenPerAgent,
      'maxChildrenPerAgent',
      DEFAULT_TOPOLOGY_LIMITS.maxChildrenPerAgent,
      MAX_TOPOLOGY_LIMITS.maxChildrenPerAgent,
    ),
    maxConcurrent: limit(
      options.maxConcurrent,
      'maxConcurrent',
      DEFAULT_TOPOLOGY_LIMITS.maxConcurrent,
      Number.MAX_SAFE_INTEGER,
    ),
  });
}

/** A spawn request's id and role, each checked when given. */
export function names(request: SpawnRequest): {
  readonly id: string | undefined;
  readonly role: string | undefined;
} {
  return {
    id: request.id === undefined ? undefined : name(request.id, 'id'),
    role: request.role === undefined ? undefined : name(request.role, 'role'),
  };
}

function limit(value: number | undefined, key: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new EnvelopeError(
      'invalid_argument',
      `${key} must be an integer from 1 to ${max}, got ${String(value)}`,
      {
        details: { [key]: value },
      },
    );
  }
  return value;
}

/** An id or role: a non-empty string no longer than a frame field. @throws EnvelopeError `invalid_argument`. */
export function name(value: unknown, key: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FIELD_LENGTH) {
    throw new EnvelopeError('invalid_argument', `${key} must be 1 to ${MAX_FIELD_LENGTH} characters`, {
      details: { [key]: typeof value === 'string' ? value.slice(0, 64) : String(value) },
    });
  }
  return value;
}
