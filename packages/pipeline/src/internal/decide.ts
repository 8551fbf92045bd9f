import type { RunRefusalCode } from '../errors.js';
import { PipelineError } from '../errors.js';
import { nodeKey, type NodeRecord, readRecord, recordTtlMs, writeRecord } from '../records.js';
import type { ApprovalDecision } from '../runner-types.js';
import type { PipelineDefinition } from '../types.js';
import type { RunnerEnv } from './env.js';

type Decided =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: RunRefusalCode; readonly message: string };

/**
 * Stores a person's decision on a waiting approval node, checking the stored deadline against the
 * clock now: a decision at or after it is refused as `expired` (and the node expires).
 */
export async function decideApproval(
  env: RunnerEnv,
  definition: PipelineDefinition,
  runId: string,
  id: string,
  decision: ApprovalDecision,
): Promise<Decided> {
  if (typeof decision?.approved !== 'boolean')
    throw new PipelineError('invalid_option', 'A decision needs approved: true or false');
  const node = definition.nodes.find((n) => n.id === id);
  if (node?.kind !== 'approval')
    return { ok: false, code: 'unknown_node', message: `No approval node ${id}` };
  const key = nodeKey(env.prefix, runId, id);
  const read = readRecord(await env.store.getEntry(key), 'node');
  if (read === 'corrupt')
    return { ok: false, code: 'corrupt_record', message: `The stored record ${key} is corrupt` };
  const record = read.value;
  if (record.status !== 'waiting')
    return {
      ok: false,
      code: 'not_waiting',
      message: `${id} is ${record.status}, not waiting for a decision`,
    };
  const now = env.clock.now();
  const expired = now >= (record.deadlineAt ?? 0);
  const end = { ...record, endedAt: now, owner: undefined, leaseUntil: undefined };
  const next: NodeRecord = expired
    ? { ...end, status: 'failed', code: 'expired', reason: 'no decision before the deadline' }
    : {
        ...end,
        status: decision.approved ? 'done' : 'rejected',
        output: {
          approved: decision.approved,
          decidedAt: now,
          ...(decision.reason === undefined ? {} : { reason: String(decision.reason) }),
          ...(decision.by === undefined ? {} : { by: String(decision.by) }),
        },
        ...(decision.reason === undefined || decision.approved ? {} : { reason: String(decision.reason) }),
      };
  if (
    (await writeRecord(
      env.store,
      key,
      read.version,
      next,
      recordTtlMs(definition, env.ttlMs, env.leaseGraceMs),
    )) === false
  )
    return { ok: false, code: 'not_waiting', message: `${id} was settled by someone else first` };
  env.events.emit('node', {
    runId,
    node: id,
    previous: 'waiting',
    status: next.status,
    attempt: next.attempts,
    revision: next.revision,
    code: next.code,
    reason: next.reason,
  });
  if (expired)
    return { ok: false, code: 'expired', message: `The decision on ${id} came after its deadline` };
  return { ok: true };
}
