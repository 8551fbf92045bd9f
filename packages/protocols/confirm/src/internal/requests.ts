import { allowanceCovers } from '../allowance.js';
import type { Entry, GateContext } from './context.js';
import { readGrant as readStoredGrant } from './persistence.js';
import { activate, settle, transition } from './runner.js';

/**
 * Admits a new entry as the pure `admit` rule says: settled (aborted, refused, confirmed by a
 * standing allowance), prompted, queued, or superseding the session's prompted one. The request is
 * one event, admitted at `now`, the time it was made (read once); it returns at once unless the
 * standing allowance is read first (then admitted again, at the time of that answer).
 */
export function begin(
  ctx: GateContext,
  entry: Entry,
  signal: AbortSignal | undefined,
  unrecorded = false,
  now: number = ctx.clock.now(),
  grant: string | null | 'unread' = 'unread',
): undefined | Promise<void> {
  const { sessionKey } = entry.conf.record;
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
    unrecorded,
  };
  // Settled here when the rule settles it (refused, aborted, confirmed by an allowance).
  const { admission } = transition(ctx, entry, { type: 'admit', view }, now);
  if (admission === undefined) return; // aborted while the allowance was read
  switch (admission.kind) {
    case 'settle':
      return;
    case 'read_grant':
      listen(ctx, entry, signal);
      return readGrant(ctx, entry).then((read) =>
        begin(ctx, entry, signal, unrecorded, ctx.clock.now(), read),
      );
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
  activate(ctx, entry, now);
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
  return allowanceCovers(record, grantedBy);
}
