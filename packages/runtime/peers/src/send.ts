import { assertTimeoutMs, canonicalJson, type Emitter, isParleyError } from '@parley/core';
import type { Correlator, Reply } from '@parley/correlate';
import type { Conversations } from './conversations.js';
import { messageOf, type PeerRefusalCode } from './errors.js';
import { ID_PATTERN, type PeerSendAnswer } from './protocol.js';
import type { SendDecision, SendInput } from './rules.js';
import type { PeerRefusal, PeerSendOptions, PeerSendResult, PeersEvents, PeersOptions } from './types.js';

/** What a send needs of its endpoint: its identity, limits, stores and how it asks. */
export interface PeerEndpoint {
  readonly self: string;
  readonly topology: PeersOptions['topology'];
  readonly prefix: string;
  readonly maxRounds: number;
  readonly maxChars: number;
  readonly nextId: () => string;
  readonly events: Emitter<PeersEvents>;
  readonly correlator: Correlator;
  readonly conversations: Conversations;
  readonly isClosed: () => boolean;
  /** Decides a send on the stored conversation. */
  readonly claim: (key: string, input: SendInput) => Promise<SendDecision>;
  /** Sends one round as a correlate request and waits for its reply. */
  readonly ask: (o: PeerSendOptions, conversationId: string, round: number) => Promise<Reply<PeerSendAnswer>>;
}

/** One blocking send: checked, claimed on the conversation, asked (or awaited), and answered. */
export async function sendToPeer(peer: PeerEndpoint, o: PeerSendOptions): Promise<PeerSendResult> {
  const to = String(o.to);
  const checked = checkSend(peer, o, to);
  if ('ok' in checked) return checked;
  const { conversationId, sendId } = checked;
  const key = `${peer.prefix}conv:${conversationId}`;
  const input = {
    conversationId,
    from: peer.self,
    to,
    sendId,
    digest: canonicalJson({ to, message: o.message }),
  };
  let decision: SendDecision;
  try {
    decision = await peer.claim(key, input);
  } catch (error) {
    return refuse(peer, to, 'store_failed', messageOf(error), { conversationId });
  }
  if (!decision.ok) return refuse(peer, to, decision.code, decision.message, { conversationId });
  const { round, entry } = decision;
  const where = { conversationId, round };
  if (entry.answer !== undefined) return success(peer, conversationId, round, entry.answer, true);
  let reply: Reply<PeerSendAnswer>;
  try {
    reply = decision.replay
      ? await awaitClaimed(peer, o, conversationId, round)
      : await peer.ask(o, conversationId, round);
  } catch (error) {
    // Object(…).code: a CorrelateError's code, or nothing for anything else thrown.
    const code: PeerRefusalCode = CODE_OF[String(Object(error).code)] ?? 'store_failed';
    return refuse(peer, to, code, messageOf(error), where);
  }
  if (!reply.approved) {
    const peerCode = String(reply.reason).slice(0, 64); // a rejection always has the peer's code
    return refuse(peer, to, 'refused_by_peer', `${to} refused the send: ${peerCode}`, { ...where, peerCode });
  }
  const answer = { reply: reply.response.reply ?? null, end: reply.response.end === true };
  if (canonicalJson(answer.reply).length > peer.maxChars) {
    return refuse(
      peer,
      to,
      'message_too_large',
      `The reply of ${to} is too large (max ${peer.maxChars})`,
      where,
    );
  }
  await peer.conversations.saveAnswer(key, sendId, answer).catch(() => {}); // the reply is ours either way
  peer.events.emit('replied', { conversationId, round, to, ended: answer.end });
  return success(peer, conversationId, round, answer, false);
}

/** The checks before anything is stored: open endpoint, ids, JSON message within size, topology. */
function checkSend(
  peer: PeerEndpoint,
  o: PeerSendOptions,
  to: string,
): PeerRefusal | { readonly conversationId: string; readonly sendId: string } {
  if (peer.isClosed()) return refuse(peer, to, 'closed', 'This endpoint is closed');
  if (o.timeoutMs !== undefined) assertTimeoutMs(o.timeoutMs, 'timeoutMs');
  const conversationId = o.conversationId ?? peer.nextId();
  const sendId = o.sendId ?? peer.nextId();
  if (!ID_PATTERN.test(conversationId) || !ID_PATTERN.test(sendId) || !ID_PATTERN.test(to)) {
    return refuse(peer, to, 'invalid_request', 'to, conversationId and sendId must be short ids');
  }
  let text: string;
  try {
    text = canonicalJson(o.message);
  } catch {
    return refuse(peer, to, 'invalid_request', 'The message is not JSON', { conversationId });
  }
  if (text.length > peer.maxChars) {
    const message = `The message has ${text.length} characters (max ${peer.maxChars})`;
    return refuse(peer, to, 'message_too_large', message, { conversationId });
  }
  const check = peer.topology.check({
    from: peer.self,
    to,
    expect_response: true,
    spawn_depth: peer.topology.agent(peer.self)?.depth ?? 0,
  });
  if (!check.ok) return refuse(peer, to, check.code, check.message, { conversationId });
  return { conversationId, sendId };
}

/** A replayed send waits for the round already claimed, and asks it when it was claimed but never sent. */
function awaitClaimed(
  peer: PeerEndpoint,
  o: PeerSendOptions,
  conversationId: string,
  round: number,
): Promise<Reply<PeerSendAnswer>> {
  return peer.correlator
    .waitFor(`${conversationId}#${round}`, o.signal === undefined ? {} : { signal: o.signal })
    .catch((error: unknown) => {
      if (isParleyError(error, 'unknown_request')) return peer.ask(o, conversationId, round); // claimed, never sent
      throw error;
    }) as Promise<Reply<PeerSendAnswer>>; // the same protocol's reply
}

function refuse(
  peer: PeerEndpoint,
  to: string,
  code: PeerRefusal['code'],
  message: string,
  where: { conversationId?: string; round?: number; peerCode?: string } = {},
): PeerRefusal {
  peer.events.emit('refused', { direction: 'out', code, message, peer: to, ...where });
  return { ok: false, code, message, ...where };
}

function success(
  peer: PeerEndpoint,
  conversationId: string,
  round: number,
  answer: { readonly reply: unknown; readonly end: boolean },
  replayed: boolean,
): PeerSendResult {
  const roundsLeft = answer.end ? 0 : peer.maxRounds - round;
  return { ok: true, conversationId, round, reply: answer.reply, roundsLeft, ended: answer.end, replayed };
}

const CODE_OF: Partial<Record<string, PeerRefusalCode>> = {
  timeout: 'timeout',
  cancelled: 'cancelled',
  closed: 'closed',
  send_failed: 'send_failed',
  too_many_pending: 'too_many_pending',
  invalid_payload: 'invalid_request',
};
