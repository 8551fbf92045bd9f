// The links of the team: one recording hub (@parley/testing) with an endpoint per party, recording
// every message with its fate; whatever a party sends is also written to the transcript.
import type { Clock } from '@parley/core';
import type { CorrelateMessage } from '@parley/correlate';
import { brief, createRecordingHub, type RecordingHub, type Transcript } from '@parley/testing';

export const LEAD = 'lead';

export type Hub = RecordingHub<CorrelateMessage, string>;

/** The lead and every teammate on one hub. Delivery is manual: the host flushes it. */
export function createHub(teammates: readonly string[], clock: Clock): Hub {
  return createRecordingHub<CorrelateMessage, string>({
    endpoints: [LEAD, ...teammates],
    route: (message) => message.to,
    clock,
    delivery: 'manual',
  });
}

/** The `send` of one party: to the transcript, then the hub (`delayMs` later on a slow link). */
export function hubSender(
  hub: Hub,
  from: string,
  transcript: Transcript,
  delayMs = 0,
): (message: CorrelateMessage) => void {
  const endpoint = hub.endpoint(from);
  return (message) => {
    if (delayMs > 0) hub.delay(delayMs, { from });
    endpoint.send(message);
    const late = delayMs > 0 ? `  (slow link: arrives in ${delayMs / 1000} s)` : '';
    transcript.entry(`${message.from} → ${message.to}`, `${describeMessage(message)}${late}`);
  };
}

/** `shutdown request req_1 {"reason":"…"}`: the protocol, the kind, the request_id and the body. */
export function describeMessage(message: CorrelateMessage): string {
  const head = `${message.protocol} ${message.kind} ${message.request_id}`;
  switch (message.kind) {
    case 'request':
      return `${head} ${brief(message.payload)}`;
    case 'response':
      return `${head} ${brief(message.response)}`;
    default:
      return `${head} ${brief({ note: message.note, waiting_on_human: message.waiting_on_human })}`;
  }
}
