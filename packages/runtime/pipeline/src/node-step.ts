import type { JsonValue, StepResult } from '@parley/core';
import type { NodeRecord, NodeStatus, ReviseRequest } from './records.js';
import type { RetryContext } from './retry-context.js';
import type { ApprovalDecision } from './runner-types.js';
import type { FailureKind } from './types.js';

// The rules of a node's record as one pure step over the stored record, run by the durable kernel
// (`kernel.apply`: a fresh read, this step, one compare-and-set). Every event names the state it
// applies to; on any other state the step changes nothing (`stale`), so a runner acting on an old
// copy, a second decision or a skip racing a start never overwrites what another writer stored.

/** Fields every event carries: how long the record lives past this write (the run's record lifetime). */
interface Life {
  readonly lifeMs: number;
}

/**
 * What can happen to a node, each applied by {@link nodeStep} to the fresh stored record: an
 * attempt starts, fails, asks for a revision, ends; a pending node is skipped or starts waiting
 * for a person; a waiting one is decided or expires; a running one whose owner's lease ran out
 * without a result is reported (`unknown`). `lifeMs` is how long the record lives past the write.
 *
 * @example
 * ```ts
 * import type { NodeEvent } from '@parley/pipeline';
 *
 * const skip: NodeEvent = { type: 'skip', reason: 'bull failed', lifeMs: 7 * 24 * 3_600_000 };
 * ```
 */
export type NodeEvent = Life &
  (
    | {
        /** An attempt starts (the first, a retry, a take-over, or a review's re-run of a done node). */
        readonly type: 'start';
        readonly spawnId: string | undefined;
        readonly spawned: boolean;
        readonly revisedFor: NodeRecord['revisedFor'];
      }
    | {
        /** The attempt failed; `retry` is kept for the next attempt when the policy retries. */
        readonly type: 'fail';
        readonly kind: FailureKind;
        readonly message: string;
        readonly retry: RetryContext | undefined;
      }
    | { readonly type: 'revise'; readonly revise: ReviseRequest }
    | {
        /** The node ends (from running): done, skipped, failed, escalated. */
        readonly type: 'end';
        readonly status: 'done' | 'skipped' | 'failed' | 'escalated';
        readonly output?: JsonValue | undefined;
        readonly code?: string | undefined;
        readonly reason?: string | undefined;
        readonly escalateTo?: string | undefined;
        readonly abort?: boolean | undefined;
        /** A revision that succeeded: the revision count goes up. */
        readonly revised?: boolean | undefined;
      }
    | { readonly type: 'skip'; readonly reason: string }
    | { readonly type: 'wait'; readonly deadlineAt: number }
    | { readonly type: 'decide'; readonly decision: ApprovalDecision }
    | { readonly type: 'expire' }
    | { readonly type: 'unknown'; readonly owner: string }
  );

/**
 * What {@link nodeStep} tells the runner: the node moved (from which status and revision), the
 * event did not apply to the stored state (`stale`: nothing is written), or a decision came at or
 * after the stored deadline (`expired`).
 *
 * @example
 * ```ts
 * import type { NodeEffect } from '@parley/pipeline';
 *
 * const effect: NodeEffect = { type: 'stale', status: 'done' };
 * ```
 */
export type NodeEffect =
  | { readonly type: 'moved'; readonly from: NodeStatus; readonly fromRevision: number }
  | { readonly type: 'stale'; readonly status: NodeStatus }
  | { readonly type: 'expired' };

/** @internal A node's record before its first write. */
export const PENDING: NodeRecord = Object.freeze({
  v: 1,
  status: 'pending',
  attempts: 0,
  spawns: 0,
  revision: 0,
  failures: {},
});

/**
 * Computes a node's next record for `event` at `now`: the rules of a pipeline node as one pure step,
 * which the runner runs through the durable kernel of `@parley/core` (a fresh read, this step, one
 * compare-and-set, fenced by the node's lease). An event that does not apply to the stored state
 * returns the record unchanged with a `stale` effect, so nothing is written.
 *
 * Use it to test a node's rules alone, or to host them on another engine; the runner is its only
 * writer otherwise. It never reads a clock, touches a store or awaits.
 *
 * @example
 * ```ts
 * import { nodeStep } from '@parley/pipeline';
 *
 * const lifeMs = 60_000;
 * const started = nodeStep(undefined, { type: 'start', spawnId: undefined, spawned: false, revisedFor: undefined, lifeMs }, 0);
 * const done = nodeStep(started.value, { type: 'end', status: 'done', output: 'brief', lifeMs }, 5);
 * console.log(done.value?.status, done.value?.attempts); // done 1
 * const again = nodeStep(done.value, { type: 'skip', reason: 'late', lifeMs }, 6);
 * console.log(again.effects); // [ { type: 'stale', status: 'done' } ]
 * ```
 */
export function nodeStep(
  stored: NodeRecord | undefined,
  event: NodeEvent,
  now: number,
): StepResult<NodeRecord, NodeEffect> {
  const current = stored ?? PENDING;
  const next = transition(current, event, now);
  if (next === undefined) return { value: stored, effects: [{ type: 'stale', status: current.status }] };
  const moved: NodeEffect = { type: 'moved', from: current.status, fromRevision: current.revision };
  const effects: NodeEffect[] =
    event.type === 'decide' && next.code === 'expired' ? [moved, { type: 'expired' }] : [moved];
  return { value: next, effects, deadlineAt: now + event.lifeMs };
}

function transition(record: NodeRecord, event: NodeEvent, now: number): NodeRecord | undefined {
  const { status } = record;
  switch (event.type) {
    case 'start': {
      const revising = status === 'done' && event.revisedFor !== undefined;
      if (status !== 'pending' && status !== 'running' && !revising) return undefined;
      return amend(record, {
        status: 'running',
        attempts: record.attempts + 1,
        spawns: record.spawns + (event.spawned ? 1 : 0),
        spawnId: event.spawnId,
        startedAt: now,
        code: undefined,
        reason: undefined,
        revisedFor: event.revisedFor,
        // a revision's attempts start clean; a retry or a take-over keeps the stored failure's context
        retry: revising ? undefined : record.retry,
      });
    }
    case 'fail': {
      if (status !== 'running') return undefined;
      const failures = { ...record.failures, [event.kind]: (record.failures[event.kind] ?? 0) + 1 };
      return amend(record, { failures, code: event.kind, reason: event.message, retry: event.retry });
    }
    case 'revise':
      return status === 'running' ? { ...record, revise: event.revise } : undefined;
    case 'end': {
      if (status !== 'running') return undefined;
      return amend(record, {
        status: event.status,
        output: event.output === undefined ? record.output : event.output,
        code: event.code,
        reason: event.reason,
        escalateTo: event.escalateTo,
        abort: event.abort,
        revision: record.revision + (event.revised === true ? 1 : 0),
        endedAt: now,
        revise: undefined,
        retry: undefined,
      });
    }
    case 'skip':
      return status === 'pending'
        ? { ...record, status: 'skipped', reason: event.reason, endedAt: now }
        : undefined;
    case 'wait':
      return status === 'pending'
        ? {
            ...record,
            status: 'waiting',
            attempts: record.attempts + 1,
            startedAt: now,
            deadlineAt: event.deadlineAt,
          }
        : undefined;
    case 'expire':
      return status === 'waiting' && now >= (record.deadlineAt ?? 0) ? expired(record, now) : undefined;
    case 'decide':
      return status === 'waiting' ? decided(record, event.decision, now) : undefined;
    case 'unknown':
      return status === 'running'
        ? amend(record, {
            status: 'failed',
            code: 'unknown_outcome',
            reason: `attempt ${record.attempts} was claimed by ${event.owner}, whose lease ran out without a result; not run again`,
            endedAt: now,
            revise: undefined,
            retry: undefined,
          })
        : undefined;
  }
}

/** A waiting approval's record once decided at `now`: expired at or after its stored deadline. */
function decided(record: NodeRecord, decision: ApprovalDecision, now: number): NodeRecord {
  if (now >= (record.deadlineAt ?? 0)) return expired(record, now, 'no decision before the deadline');
  const reason = decision.reason === undefined ? undefined : String(decision.reason);
  return amend(record, {
    status: decision.approved ? 'done' : 'rejected',
    endedAt: now,
    output: {
      approved: decision.approved,
      decidedAt: now,
      ...(reason === undefined ? {} : { reason }),
      ...(decision.by === undefined ? {} : { by: String(decision.by) }),
    },
    reason: decision.approved ? undefined : reason,
  });
}

function expired(record: NodeRecord, now: number, reason?: string): NodeRecord {
  const at = new Date(record.deadlineAt ?? 0).toISOString();
  return {
    ...record,
    status: 'failed',
    code: 'expired',
    reason: reason ?? `no decision by ${at}`,
    endedAt: now,
  };
}

/**
 * The record with `changes` applied and its undefined fields left out (what the store keeps): a
 * field set to `undefined` in `changes` is removed. Copied field by field, not spread: a record read
 * back from the store has a shape V8 copies slowly by spreading.
 */
function amend(record: NodeRecord, changes: Partial<Record<keyof NodeRecord, unknown>>): NodeRecord {
  const out: Record<string, unknown> = {};
  for (const key in record) {
    if (key in changes) continue;
    const value = record[key as keyof NodeRecord];
    if (value !== undefined) out[key] = value;
  }
  for (const key in changes) {
    const value = changes[key as keyof NodeRecord];
    if (value !== undefined) out[key] = value;
  }
  return out as unknown as NodeRecord; // the record's fields and the changed ones, none undefined
}
