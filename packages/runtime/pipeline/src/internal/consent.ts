import { appendConsentFacts, type ConsentFact, type ConsentLedger } from '@parley/core';
import type { ApprovalDecision } from '../runner-types.js';
import type { PipelineDefinition } from '../types.js';

// The runner's `ledger` option: an approval node's request, the answer and the decision, in the
// run's chain (session `pipeline:<run id>`, confirmation id `approval:<node>`).

/** The ledger session of a run's approvals. */
export const sessionOf = (runId: string): string => `pipeline:${runId}`;

/** The request fact of an approval node: the same content each time, so a re-append is a duplicate. */
export function requestFact(definition: PipelineDefinition, node: string): ConsentFact {
  return {
    kind: 'request',
    ref: `approval:${node}`,
    actionName: `${definition.name}.${node}`,
    // the definition's content digest and the node: what an approval lets proceed
    actionDigest: `${definition.digest}:${node}`,
    summary: `${definition.name}: approval ${node}`,
    requester: definition.owner ?? definition.name,
    approvers: 'any',
  };
}

/** The answer fact of a person's decision on an approval node. */
export function answerFact(node: string, decision: ApprovalDecision): ConsentFact {
  return {
    kind: 'answer',
    confirmationId: `approval:${node}`,
    authorId: decision.by ?? 'unknown',
    via: 'reply',
    text: `${decision.approved ? 'approved' : 'rejected'}${decision.reason === undefined ? '' : `: ${decision.reason}`}`,
  };
}

/** The decision fact of an approval node, with the outcome the stored record took. */
export function decisionFact(
  definition: PipelineDefinition,
  node: string,
  outcome: 'confirmed' | 'cancelled' | 'timed_out',
  by: string | undefined,
): ConsentFact {
  return {
    kind: 'decision',
    confirmationId: `approval:${node}`,
    actionDigest: `${definition.digest}:${node}`,
    outcome,
    reason: outcome === 'timed_out' ? 'timeout' : 'decide',
    ...(by === undefined ? {} : { decidedBy: by }),
  };
}

/** Appends facts in order; the first refusal's message, or `undefined` when all were recorded. */
export async function appendFacts(
  ledger: ConsentLedger,
  runId: string,
  facts: readonly ConsentFact[],
): Promise<string | undefined> {
  const result = await appendConsentFacts(ledger, sessionOf(runId), facts);
  return result.ok
    ? undefined
    : `the ${result.fact.kind} of the approval was not recorded: ${result.message}`;
}
