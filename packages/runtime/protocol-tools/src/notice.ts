import type { TrackedRequest } from '@parley/correlate';

/**
 * What the model is told about a request of a protocol, to append to its next input: a request
 * waiting for its answer (`protocol_request`, naming the tool to answer with), or the outcome of
 * a request it made (`protocol_outcome`). Plain JSON.
 *
 * @example
 * ```ts
 * import type { ProtocolNotice } from '@parley/protocol-tools';
 *
 * const line = (n: ProtocolNotice): string => `${n.type} ${n.request_id}`;
 * ```
 */
export type ProtocolNotice =
  | {
      readonly type: 'protocol_request';
      readonly protocol: string;
      readonly request_id: string;
      readonly from: string;
      readonly payload: unknown;
      /** The tool to answer with. */
      readonly answer_with: string;
      /** When the request expires (ISO 8601); an answer after it is refused. */
      readonly deadline: string;
    }
  | {
      readonly type: 'protocol_outcome';
      readonly protocol: string;
      readonly request_id: string;
      readonly to: string;
      readonly state: TrackedRequest['state'];
      readonly reason?: string;
    };

/** @internal Builds the notice of a tracked request; `answerWith` names the respond tool. */
export function noticeOf(request: TrackedRequest, answerWith: string): ProtocolNotice {
  if (request.role === 'responder') {
    return {
      type: 'protocol_request',
      protocol: request.protocol,
      request_id: request.id,
      from: request.from,
      payload: request.payload,
      answer_with: answerWith,
      deadline: new Date(request.deadlineAt).toISOString(),
    };
  }
  return {
    type: 'protocol_outcome',
    protocol: request.protocol,
    request_id: request.id,
    to: request.to,
    state: request.state,
    ...(request.reason === undefined ? {} : { reason: request.reason }),
  };
}
