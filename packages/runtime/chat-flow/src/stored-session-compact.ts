// A session record kept as the JSON text its last write stored, decoded again when it is needed: what
// a host does with the open sessions it has not used for a while (see `maxDecodedSessions`).
import type { Flow } from '@parley/fsm';
import { FLOW_SESSION_RECORD_FORMAT, type FlowSessionRecord } from './stored-session-record.js';
import { decodeSlot } from './stored-session-steps.js';

/**
 * @internal The record of session `id` read back from `text`, the data its last write stored (format
 * 5, packed), as a resume would read it but without the data's schema: the data was taken when it
 * was written, and a record kept as text must come back as it was. A text this handle's own write
 * stored always decodes; one that does not is a defect, thrown as such.
 */
export function decodeText<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  id: string,
  text: string,
): { readonly rev: number; readonly record: FlowSessionRecord<TStep, TContext, TData> } {
  const slot = decodeSlot<TStep, TContext, TData>(
    flow,
    JSON.parse(text),
    FLOW_SESSION_RECORD_FORMAT,
    undefined,
  );
  if (slot === undefined || 'problem' in slot || slot.record.id !== id) {
    const reason =
      slot !== undefined && 'problem' in slot ? slot.problem.reason : 'no revision, or another id';
    throw new Error(`session ${id}: the record its last write stored does not read back (${reason})`);
  }
  return slot;
}
