// The links between the lead and each teammate: one RecordingTransport per pair (it has exactly two
// endpoints), so every request, response and progress note is recorded with its fate. Whatever is
// sent is also written to the transcript with its request_id.
import type { Clock } from '@parley/core';
import type { CorrelateMessage } from '@parley/correlate';
import { createRecordingTransport, type RecordingTransport } from '@parley/testing';
import { brief, type Transcript } from '@parley/testing';

export const LEAD = 'lead';

export type Wire = RecordingTransport<CorrelateMessage, string>;

/** The link between the lead and one teammate. Delivery is manual: the host flushes it (see `deliverAll`). */
export function createWire(teammate: string, clock: Clock): Wire {
  return createRecordingTransport<CorrelateMessage, string>({
    endpoints: [LEAD, teammate],
    clock,
    delivery: 'manual',
  });
}

/**
 * The `send` of one party on one wire: writes the message to the transcript and hands it to the
 * wire. A slow link (`delayMs`) has the wire deliver it that much later on the clock.
 */
export function wireSender(
  wire: Wire,
  from: string,
  transcript: Transcript,
  delayMs = 0,
): (message: CorrelateMessage) => void {
  const endpoint = wire.endpoint(from);
  return (message) => {
    if (delayMs > 0) wire.delay(delayMs, { from });
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

/**
 * Delivers everything waiting on every wire (answers included) until all are quiet; `idle` waits
 * for the parties' work in progress (a model turn going through its tool gate) before each round.
 */
export async function deliverAll(wires: Iterable<Wire>, idle: () => Promise<unknown>): Promise<void> {
  const list = [...wires];
  for (;;) {
    await idle();
    let moved = 0;
    for (const wire of list) moved += await wire.flush();
    if (moved === 0) return;
  }
}
