// The request/response protocols the host correlates with @parley/correlate: a spawned run and
// its announce (sessions_spawn returns at once; the announce arrives later, or never), and the
// chairman's approval in #approvals (the ready `planApprovalProtocol`).
import { defineProtocol } from '@parley/correlate';
import { z } from 'zod';

export { planApprovalProtocol } from '@parley/correlate';

/** How long the strategist waits for a spawned run to announce before spawning it again. */
export const TASK_TIMEOUT_MS = 15 * 60_000;
/** How long the CEO waits for the chairman. */
export const APPROVAL_TIMEOUT_MS = 60 * 60_000;

/**
 * One spawned run: the request carries the first envelope (assign_task, review_request or
 * request_clarification) as text; the response is the run's announce, or the runtime's report
 * that the run failed (a model API error), which settles the request as rejected.
 */
export const sessionsSpawnProtocol = defineProtocol('sessions_spawn', {
  request: z.object({
    step: z.string().min(1),
    run_id: z.string().min(1),
    output: z.string().min(1),
    envelope: z.string().min(1),
  }),
  response: z.discriminatedUnion('status', [
    z.object({ status: z.literal('announced'), envelope: z.string().min(1) }),
    z.object({ status: z.literal('failed'), error: z.string().min(1) }),
  ]),
  decide: (response) =>
    response.status === 'announced' ? { approve: true } : { approve: false, reason: response.error },
  timeoutMs: TASK_TIMEOUT_MS,
});
