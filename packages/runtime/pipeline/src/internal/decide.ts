import type { RunRefusalCode } from '../errors.js';
import { PipelineError } from '../errors.js';
import { recordTtlMs } from '../records.js';
import type { ApprovalDecision } from '../runner-types.js';
import type { PipelineDefinition } from '../types.js';
import type { RunnerEnv } from './env.js';
import { answerFact, appendFacts, decisionFact, requestFact } from './consent.js';
import { type Committed, CorruptRecord, commitNode } from './io.js';

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
    throw new PipelineError('invalid_argument', 'A decision needs approved: true or false');
  const node = definition.nodes.find((n) => n.id === id);
  if (node?.kind !== 'approval')
    return { ok: false, code: 'unknown_node', message: `No approval node ${id}` };
  // The answer is on record before the decision is stored: otherwise nothing is stored.
  const ledger = env.ledger;
  if (ledger !== undefined) {
    const problem = await appendFacts(ledger, runId, [requestFact(definition, id), answerFact(id, decision)]);
    if (problem !== undefined) return { ok: false, code: 'not_recorded', message: problem };
  }
  let done: Committed;
  try {
    const lifeMs = recordTtlMs(definition, env.ttlMs, env.leaseGraceMs);
    done = await commitNode(env, runId, id, { type: 'decide', decision, lifeMs });
  } catch (error) {
    if (error instanceof CorruptRecord) return { ok: false, code: 'corrupt_record', message: error.message };
    throw error;
  }
  if (!done.ok) {
    // a waiting approval holds no lease, so the only refusal here is a node in another state
    const status = done.code === 'stale' ? done.status : 'leased';
    return { ok: false, code: 'not_waiting', message: `${id} is ${status}, not waiting for a decision` };
  }
  const expired = done.effects.some((effect) => effect.type === 'expired');
  if (ledger !== undefined) {
    const outcome = expired ? 'timed_out' : decision.approved ? 'confirmed' : 'cancelled';
    const problem = await appendFacts(ledger, runId, [
      decisionFact(definition, id, outcome, expired ? undefined : decision.by),
    ]);
    // stored already: the decision stands, and its missing record is reported
    if (problem !== undefined) env.events.emit('refused', { runId, code: 'not_recorded', message: problem });
  }
  if (expired)
    return { ok: false, code: 'expired', message: `The decision on ${id} came after its deadline` };
  return { ok: true };
}
