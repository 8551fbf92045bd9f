import { parseMessage } from '../messages.js';
import type { CorrelateRefusal, ReceiveResult } from '../receive-result.js';
import type { Shared } from './context.js';
import type { Requester } from './requester.js';
import type { Responder } from './responder.js';
import { about } from './util.js';

/**
 * Routes one raw incoming message: refused when the correlator is closed, the message is malformed
 * or for someone else; otherwise a request goes to the responder and a reply or progress note to
 * the requester.
 */
export function routeMessage(
  shared: Shared,
  responder: Responder,
  requester: Requester,
  raw: unknown,
  closed: boolean,
): ReceiveResult | Promise<ReceiveResult> {
  const self = shared.self;
  if (closed) return shared.refuse({ code: 'closed', message: `Correlator "${self}" is closed` });
  const message = parseMessage(raw);
  if (typeof message === 'string') return shared.refuse({ code: 'malformed', message });
  if (message.to !== self) {
    return shared.refuse({
      ...about(message),
      code: 'wrong_recipient',
      message: `The message is for "${message.to}", not "${self}"`,
    });
  }
  return message.kind === 'request' ? responder.onRequest(message) : requester.onReply(message);
}

/** Nothing a peer sends may throw into the transport; a user schema or a bug that throws is still reported. */
export function handlerFailed(shared: Shared, error: unknown): CorrelateRefusal {
  shared.events.emit('error', { code: 'handler_failed', error });
  return shared.refuse({
    code: 'malformed',
    message: `The message could not be handled: ${String(error)}`,
  });
}
