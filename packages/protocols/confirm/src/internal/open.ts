import { assertTimeoutMs } from '@parley/core';
import type { ConfirmDecision, ConfirmRequest } from '../decision.js';
import { hashAction } from '../digest.js';
import { ConfirmError } from '../errors.js';
import { confirmationFrom } from '../step.js';
import { checkRequest } from './checks.js';
import type { ConsentRecorder } from './consent.js';
import type { GateContext } from './context.js';
import { begin } from './requests.js';
import { entryOf } from './runner.js';

/**
 * Opens one confirmation request of a gate: checks it at once, waits for the restore, records the
 * request in the consent ledger when there is one, and admits it; settles with the decision.
 */
export async function openRequest(
  ctx: GateContext,
  consent: ConsentRecorder | undefined,
  request: ConfirmRequest,
): Promise<ConfirmDecision> {
  if (ctx.closed) throw new ConfirmError('closed', 'The confirmation gate is closed');
  // Checked before waiting for the restore, so a bad request fails at once.
  const address = checkRequest(request);
  assertTimeoutMs(request.timeoutMs ?? ctx.defaultTimeoutMs);
  const hashed = hashAction(request.action);
  await ctx.ready;
  const id = ctx.nextId();
  if (ctx.closed) throw new ConfirmError('closed', 'The confirmation gate is closed');
  const now = ctx.clock.now();
  const conf = confirmationFrom(
    request,
    {
      id,
      now,
      timeoutMs: ctx.defaultTimeoutMs,
      approvers: ctx.approvers,
      ...(ctx.replicaId === undefined ? {} : { owner: ctx.replicaId }),
    },
    hashed,
  );
  const entry = entryOf(conf, address);
  const recorded =
    consent === undefined ||
    (await consent.request(request.sessionKey, {
      kind: 'request',
      ref: id,
      actionName: conf.record.action.name,
      actionDigest: hashed.digest,
      summary: request.summary,
      requester: request.requester,
      approvers: request.approvers ?? ctx.approvers,
    }));
  return new Promise<ConfirmDecision>((resolve) => {
    entry.resolve = resolve;
    // Admitted at the time of the request, unless the consent ledger was awaited meanwhile.
    void begin(ctx, entry, request.signal, !recorded, consent === undefined ? now : ctx.clock.now());
  });
}
