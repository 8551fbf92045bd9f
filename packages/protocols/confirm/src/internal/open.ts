import type { SessionAddress } from '@parley/bus';
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
 * request in the consent ledger when there is one, and admits it; settles with the decision. One
 * promise is handed to the caller: it settles with the decision, or rejects when the request cannot
 * be opened (a bad request at once; a closed gate, a bad id or a failed ledger append later).
 */
export function openRequest(
  ctx: GateContext,
  consent: ConsentRecorder | undefined,
  request: ConfirmRequest,
): Promise<ConfirmDecision> {
  let address: SessionAddress;
  let hashed: ReturnType<typeof hashAction>;
  try {
    if (ctx.closed) throw new ConfirmError('closed', 'The confirmation gate is closed');
    // Checked before waiting for the restore, so a bad request fails at once.
    address = checkRequest(request);
    assertTimeoutMs(request.timeoutMs ?? ctx.defaultTimeoutMs);
    hashed = hashAction(request.action);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise<ConfirmDecision>((resolve, reject) => {
    void ctx.ready.then(() => {
      try {
        open(ctx, consent, request, { address, hashed, resolve, reject });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** What `openRequest` hands on once the restore is done: the checked request and its caller's promise. */
interface Opening {
  readonly address: SessionAddress;
  readonly hashed: ReturnType<typeof hashAction>;
  readonly resolve: (decision: ConfirmDecision) => void;
  readonly reject: (error: unknown) => void;
}

/** Makes the confirmation of a checked request, records it in the consent ledger when there is one, and admits it. */
function open(
  ctx: GateContext,
  consent: ConsentRecorder | undefined,
  request: ConfirmRequest,
  { address, hashed, resolve, reject }: Opening,
): void {
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
  if (consent === undefined) {
    entry.resolve = resolve;
    void begin(ctx, entry, request.signal, false, now); // admitted at the time of the request
    return;
  }
  const fact = {
    kind: 'request',
    ref: id,
    actionName: conf.record.action.name,
    actionDigest: hashed.digest,
    summary: request.summary,
    requester: request.requester,
    approvers: request.approvers ?? ctx.approvers,
  } as const;
  // Admitted when the ledger answered; refused, never prompted, when it could not record it.
  void consent
    .request(request.sessionKey, fact)
    .then((recorded) => {
      entry.resolve = resolve;
      return begin(ctx, entry, request.signal, !recorded, ctx.clock.now());
    })
    .catch(reject);
}
