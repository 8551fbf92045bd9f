// The revise rounds of one task as a durable-kernel record, and the pure step that takes one.
import {
  createKernel,
  createOwnerId,
  type Clock,
  type KernelError,
  type KernelStep,
  type RecordCodec,
  type Store,
} from '@parley/core';
import { ConflictError } from '../errors.js';
import { isRecord } from './checks.js';

/** Compare-and-set attempts before a contended count gives up with `store_failed`. */
const MAX_WRITE_TRIES = 10;

/** What a stored count holds: the rounds this task used. */
interface Rounds {
  readonly revisions: number;
}

/** The kernel codec of a task's revise count (kind `parley.conflict.rounds`, format 1). */
export const ROUNDS_RECORD: RecordCodec<Rounds> = {
  kind: 'parley.conflict.rounds',
  version: 1,
  decode(data) {
    const used = isRecord(data) ? data['revisions'] : undefined;
    return typeof used === 'number' && Number.isInteger(used) && used >= 0 ? { revisions: used } : undefined;
  },
  encode: (rounds) => ({ revisions: rounds.revisions }),
  // A count as @parley/conflict stored it before the kernel: the next round stores it as a kernel record.
  legacy: (stored) => ROUNDS_RECORD.decode(stored),
};

/** What taking a round asks: the most rounds, and how long the count lives after this one. */
interface Take {
  readonly max: number;
  readonly ttlMs: number;
}

/**
 * Takes one more round of the committed count, or none when `max` are used (pure): the count lives
 * `ttlMs` after the round it records.
 */
export const takeRound: KernelStep<Rounds, Take, number | 'limit'> = (current, { max, ttlMs }, now) => {
  const used = current?.revisions ?? 0;
  if (used >= max) return { value: current, effects: ['limit'] };
  return { value: { revisions: used + 1 }, effects: [used + 1], deadlineAt: now + ttlMs };
};

/**
 * The revise rounds of one task, kept in a Store so they survive a restart of the pipeline: every
 * gate instance reading the same key counts the same rounds.
 */
export interface StoredRounds {
  /** The rounds already used by this task (0 when none are stored). */
  load(): Promise<number>;
  /** Takes one more round, or answers `undefined` when `max` are already used. */
  claim(max: number): Promise<number | undefined>;
}

/** The stored rounds of `key` through the kernel (its store TTL is the count's deadline, no grace). */
export function storedRounds(store: Store, clock: Clock, key: string, ttlMs: number): StoredRounds {
  const kernel = createKernel({ store, clock, owner: createOwnerId('review-gate'), graceMs: 0 });
  return {
    async load() {
      try {
        return (await kernel.read(key, ROUNDS_RECORD))?.value.revisions ?? 0;
      } catch (error) {
        // read throws only a KernelError: corrupt_record, record_version or store_failed (cause: the store's)
        const { code, cause } = error as KernelError;
        throw failure(key, problemOf(code, 'read'), cause ?? error);
      }
    },
    async claim(max) {
      const options = { maxAttempts: MAX_WRITE_TRIES };
      const done = await kernel.apply(key, ROUNDS_RECORD, takeRound, { max, ttlMs }, options);
      if (!done.ok) throw failure(key, problemOf(done.code, 'write'), done.cause ?? new Error(done.message));
      const used = done.effects[0];
      return used === 'limit' ? undefined : used;
    },
  };
}

/** What went wrong with a count, in `details.problem` of its `store_failed` error. */
type Problem = 'read_failed' | 'write_failed' | 'corrupt_value' | 'record_version' | 'contended';

function problemOf(code: string, what: 'read' | 'write'): Problem {
  if (code === 'corrupt_record') return 'corrupt_value';
  if (code === 'record_version') return 'record_version';
  if (code === 'write_conflict') return 'contended';
  return `${what}_failed`;
}

const WHY: Record<Problem, string> = {
  read_failed: 'the store failed to read it',
  write_failed: 'the store failed to write it',
  corrupt_value: 'the stored count is corrupt',
  record_version: 'the stored count is of another record format',
  contended: `it kept changing under ${MAX_WRITE_TRIES} writes in a row`,
};

function failure(key: string, problem: Problem, cause: unknown): ConflictError {
  return new ConflictError('store_failed', `The revise count of "${key}": ${WHY[problem]}`, {
    cause,
    details: { key, problem, ...(problem === 'contended' ? { tries: MAX_WRITE_TRIES } : {}) },
  });
}
