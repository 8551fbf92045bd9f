// The answering half of a blocking send: every incoming round is checked (the topology's depth-0
// rule, the round limit, the size) before the one handler sees it, and anything refused is
// answered with a refusal code so the sender stops waiting at once instead of timing out.
import { canonicalJson, type Emitter, isParleyError, type Unsubscribe } from '@parley/core';
import type { Correlator, TrackedRequest } from '@parley/correlate';
import { messageOf } from './errors.js';
import type { PeerSendPayload } from './protocol.js';
import type { IncomingSend, PeerAnswer, PeersEvents, PeersOptions } from './types.js';

type Handler = (send: IncomingSend) => PeerAnswer | Promise<PeerAnswer>;

export interface ResponderDeps {
  readonly self: string;
  readonly topology: PeersOptions['topology'];
  readonly correlator: Correlator;
  readonly events: Emitter<PeersEvents>;
  readonly maxRounds: number;
  readonly maxChars: number;
}

export function createResponder(deps: ResponderDeps): { onMessage(handler: Handler): Unsubscribe } {
  const { self, topology, correlator, events, maxRounds, maxChars } = deps;
  let handler: Handler | undefined;

  function report(request: TrackedRequest, code: PeersEvents['refused']['code'], message: string): void {
    const { conversation_id, round } = request.payload as PeerSendPayload; // it passed the protocol's schema
    events.emit('refused', {
      direction: 'in',
      code,
      message,
      peer: request.from,
      conversationId: conversation_id,
      round,
    });
  }

  function refuse(request: TrackedRequest, code: PeersEvents['refused']['code'], message: string): void {
    report(request, code, message);
    try {
      correlator.respond(request.id, { refused: code, reason: message.slice(0, 4000) });
    } catch {
      // Expired or closed meanwhile: the sender's own deadline settles it.
    }
  }

  async function answer(request: TrackedRequest): Promise<void> {
    const payload = request.payload as PeerSendPayload; // it passed the protocol's schema
    const check = topology.check({
      from: request.from,
      to: self,
      expect_response: true,
      spawn_depth: topology.agent(request.from)?.depth ?? 0,
    });
    if (!check.ok) return refuse(request, check.code, check.message);
    if (payload.round > maxRounds) {
      return refuse(request, 'round_limit', `Round ${payload.round} is past the limit of ${maxRounds}`);
    }
    if (canonicalJson(payload.message).length > maxChars) {
      return refuse(request, 'message_too_large', `The message is over ${maxChars} characters`);
    }
    const current = handler;
    if (current === undefined) return refuse(request, 'not_listening', `${self} answers no sends`);
    let reply: PeerAnswer;
    try {
      reply = await current({
        requestId: request.id,
        conversationId: payload.conversation_id,
        round: payload.round,
        from: request.from,
        message: payload.message,
        deadlineAt: request.deadlineAt,
      });
    } catch (error) {
      return refuse(request, 'handler_failed', messageOf(error));
    }
    let text: string;
    try {
      text = canonicalJson(reply.reply);
    } catch {
      return refuse(request, 'handler_failed', 'The reply is not JSON');
    }
    if (text.length > maxChars)
      return refuse(request, 'message_too_large', `The reply is over ${maxChars} characters`);
    try {
      // respond checks the stored deadline itself: an answer at or after it is never sent.
      correlator.respond(request.id, { reply: reply.reply, ...(reply.end === true ? { end: true } : {}) });
    } catch (error) {
      const late = isParleyError(error, 'not_pending');
      report(request, late ? 'timeout' : 'closed', messageOf(error));
    }
  }

  correlator.on('request', ({ request }) => {
    void answer(request);
  });

  return {
    onMessage(next) {
      handler = next;
      return () => {
        if (handler === next) handler = undefined;
      };
    },
  };
}
