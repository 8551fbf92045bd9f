import type { SessionAddress } from '@parley/bus';
import type { ConfirmDecision, ConfirmRequest } from '../decision.js';
import { checkApprovers } from './checks.js';
import type { GateContext } from './context.js';
import { readGrant as readStoredGrant } from './persistence.js';
import { activate, settle } from './lifecycle.js';
import type { Entry } from './records.js';
import { mayAnswer } from './step.js';
import { admit } from './step-admit.js';

/** The longest summary kept; a longer one is kept cut, with a visible count of what was not kept. */
const MAX_KEPT_SUMMARY = 8_000;

/** A new entry for a checked request, not yet admitted. */
export function newEntry(
  ctx: GateContext,
  request: ConfirmRequest,
  id: string,
  address: SessionAddress,
  action: ConfirmDecision['action'],
  timeoutMs: number,
): Entry {
  return {
    id,
    sessionKey: request.sessionKey,
    address,
    action,
    summary: keep(request.summary),
    requester: request.requester,
    approvers: request.approvers === undefined ? ctx.approvers : checkApprovers(request.approvers),
    steps: request.steps?.map((step) => ({ prompt: step.prompt, expect: step.expect })),
    timeoutMs,
    requestedAt: ctx.clock.now(),
    restored: false,
    remote: false,
    owner: ctx.replicaId,
    state: 'new',
    step: 0,
    reprompts: 0,
    firstPromptedAt: 0,
    promptedAt: 0,
    deliveredAt: undefined,
    sentSeq: undefined,
    deliveredSeq: undefined,
    order: undefined,
    seen: false,
    toldEarly: undefined,
    windowOver: false,
    sends: 0,
    pages: 0,
    expiresAt: undefined,
    done: false,
    io: Promise.resolve(),
  };
}

/**
 * Admits a new entry as the pure `admit` rule says: settled (aborted, refused, confirmed by a
 * standing allowance), prompted, queued, or superseding the session's prompted one.
 */
export async function begin(ctx: GateContext, entry: Entry, signal: AbortSignal | undefined): Promise<void> {
  let grant: string | null | 'unread' = 'unread';
  for (;;) {
    const list = ctx.queued.get(entry.sessionKey);
    const current = ctx.active.get(entry.sessionKey);
    const admission = admit(
      {
        aborted: signal?.aborted === true,
        held: ctx.byId.size - (grant === 'unread' ? 0 : 1),
        closed: ctx.closed,
        multiStep: entry.steps !== undefined,
        grant,
        active: current !== undefined,
        queued: list?.length ?? 0,
      },
      ctx.admitRules,
    );
    if (entry.done) return; // aborted while the allowance was read
    switch (admission.kind) {
      case 'settle': {
        const extra = admission.decidedBy === undefined ? undefined : { decidedBy: admission.decidedBy };
        settle(ctx, entry, admission.outcome, admission.reason, { extra, record: admission.record });
        return;
      }
      case 'read_grant':
        listen(ctx, entry, signal);
        grant = await readGrant(ctx, entry);
        continue;
      case 'supersede':
        settle(ctx, current as Entry, 'superseded', 'superseded'); // `supersede` needs an active one
        break;
      case 'queue': {
        if (grant === 'unread') listen(ctx, entry, signal);
        const queue = list ?? [];
        entry.state = 'queued';
        queue.push(entry);
        ctx.queued.set(entry.sessionKey, queue);
        ctx.events.emit('queued', { id: entry.id, sessionKey: entry.sessionKey, position: queue.length });
        return;
      }
      case 'prompt':
        break;
    }
    if (grant === 'unread') listen(ctx, entry, signal);
    activate(ctx, entry);
    return;
  }
}

/** Holds an admitted entry: listed as pending here, and aborted by its signal from now on. */
function listen(ctx: GateContext, entry: Entry, signal: AbortSignal | undefined): void {
  ctx.byId.set(entry.id, entry);
  if (signal === undefined) return;
  entry.signal = signal;
  entry.onAbort = () => settle(ctx, entry, 'aborted', 'signal');
  signal.addEventListener('abort', entry.onAbort, { once: true });
}

/** The granter of the standing allowance that covers an entry, or `null`; a failed read is reported and reads as none. */
async function readGrant(ctx: GateContext, entry: Entry): Promise<string | null> {
  const grantedBy = await readStoredGrant(ctx, ctx.keys.allow(entry), entry.id);
  return grantedBy !== undefined && mayAnswer(entry, grantedBy) ? grantedBy : null;
}

function keep(summary: string): string {
  if (summary.length <= MAX_KEPT_SUMMARY) return summary;
  return `${summary.slice(0, MAX_KEPT_SUMMARY)}… (${summary.length - MAX_KEPT_SUMMARY} more characters not kept)`;
}
