import type { SessionAddress } from '@parley/bus';
import type { ConfirmDecision, ConfirmRequest } from '../decision.js';
import { checkApprovers } from './checks.js';
import type { Entry, GateContext } from './context.js';
import { readGrant as readStoredGrant } from './persistence.js';
import { confirmationOf } from './confirmation.js';
import type { PendingRecord } from './records.js';
import { activate, entryOf, settle, transition } from './runner.js';
import { mayAnswer } from './step.js';

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
  const steps = request.steps?.map((step) => ({ prompt: step.prompt, expect: step.expect }));
  const record: PendingRecord = {
    rev: 0,
    id,
    sessionKey: request.sessionKey,
    action,
    summary: keep(request.summary),
    requester: request.requester,
    approvers: request.approvers === undefined ? ctx.approvers : checkApprovers(request.approvers),
    steps: steps ?? null,
    step: 0,
    reprompts: 0,
    timeoutMs,
    requestedAt: ctx.clock.now(),
    firstPromptedAt: 0,
    promptedAt: 0,
    expiresAt: 0, // set when it is prompted
    ...(ctx.replicaId === undefined ? {} : { owner: ctx.replicaId }),
  };
  const how = { restored: false, remote: false, resumable: false, state: 'new', deliveredSeq: null } as const;
  return entryOf(confirmationOf(record, how), address);
}

/**
 * Admits a new entry as the pure `admit` rule says: settled (aborted, refused, confirmed by a
 * standing allowance), prompted, queued, or superseding the session's prompted one.
 */
export async function begin(ctx: GateContext, entry: Entry, signal: AbortSignal | undefined): Promise<void> {
  let grant: string | null | 'unread' = 'unread';
  const { sessionKey } = entry.conf.record;
  for (;;) {
    const list = ctx.queued.get(sessionKey);
    const current = ctx.active.get(sessionKey);
    const view = {
      aborted: signal?.aborted === true,
      held: ctx.byId.size - (grant === 'unread' ? 0 : 1),
      closed: ctx.closed,
      multiStep: entry.conf.record.steps !== null,
      grant,
      active: current !== undefined,
      queued: list?.length ?? 0,
    };
    // Settled here when the rule settles it (refused, aborted, confirmed by an allowance).
    const { admission } = transition(ctx, entry, { type: 'admit', view });
    if (admission === undefined) return; // aborted while the allowance was read
    switch (admission.kind) {
      case 'settle':
        return;
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
        queue.push(entry);
        ctx.queued.set(sessionKey, queue);
        ctx.events.emit('queued', { id: entry.conf.record.id, sessionKey, position: queue.length });
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
  ctx.byId.set(entry.conf.record.id, entry);
  if (signal === undefined) return;
  entry.signal = signal;
  entry.onAbort = () => settle(ctx, entry, 'aborted', 'signal');
  signal.addEventListener('abort', entry.onAbort, { once: true });
}

/** The granter of the standing allowance that covers an entry, or `null`; a failed read is reported and reads as none. */
async function readGrant(ctx: GateContext, entry: Entry): Promise<string | null> {
  const { record } = entry.conf;
  const grantedBy = await readStoredGrant(ctx, ctx.keys.allow(record), record.id);
  return grantedBy !== undefined && mayAnswer(record, grantedBy) ? grantedBy : null;
}

function keep(summary: string): string {
  if (summary.length <= MAX_KEPT_SUMMARY) return summary;
  return `${summary.slice(0, MAX_KEPT_SUMMARY)}… (${summary.length - MAX_KEPT_SUMMARY} more characters not kept)`;
}
