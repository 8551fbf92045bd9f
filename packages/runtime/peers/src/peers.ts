import {
  assertTimeoutMs,
  canonicalJson,
  createEmitter,
  createMemoryStore,
  generateId,
  isParleyError,
  systemClock,
} from '@parley/core';
import { createCorrelator, type Reply } from '@parley/correlate';
import { messageOf, type PeerRefusalCode, PeersError } from './errors.js';
import {
  DEFAULT_CONVERSATION_MS,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_MESSAGE_CHARS,
  DEFAULT_MAX_CONVERSATION_ROUNDS,
  DEFAULT_SEND_TIMEOUT_MS,
  ID_PATTERN,
  MAX_ROUNDS_CAP,
  type PeerSendAnswer,
  peerSendProtocol,
} from './protocol.js';
import { createResponder } from './responder.js';
import { createConversations } from './conversations.js';
import type { SendDecision, SendInput } from './rules.js';
import type {
  PeerRefusal,
  Peers,
  PeerSendOptions,
  PeerSendResult,
  PeersEvents,
  PeersOptions,
} from './types.js';

/**
 * Creates one agent's endpoint for blocking sends between depth-0 peers (the reference protocol's
 * `sessions_send`): the sender blocks for the reply up to a timeout, a conversation has at most
 * `maxRounds` rounds, and everything that may not happen is refused as data, never thrown.
 *
 * Use it for "I need an answer now to go on" between two independent agents (the CEO asking the
 * secretary for today's summary); spawn for everything else. Each round is one `@parley/correlate`
 * request, so deadlines are absolute and checked when a reply arrives; with a `store`, the round
 * count and pending rounds survive a restart (`restore()`), so restarting never buys extra rounds.
 *
 * @throws PeersError `invalid_argument` for a bad `self`, topology, `send` or limit; CoreError
 * `invalid_timeout` for a bad `timeoutMs` or `conversationMs`.
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import { createPeers, type Peers } from '@parley/peers';
 * import type { CorrelateMessage } from '@parley/correlate';
 *
 * const topology = createTopology();
 * topology.register({ id: 'ceo' });
 * topology.register({ id: 'secretary' });
 * const endpoints = new Map<string, Peers>();
 * const send = (m: CorrelateMessage): void => void queueMicrotask(() => void endpoints.get(m.to)?.receive(m));
 * const ceo = createPeers({ self: 'ceo', topology, send });
 * const secretary = createPeers({ self: 'secretary', topology, send });
 * endpoints.set('ceo', ceo).set('secretary', secretary);
 * secretary.onMessage(() => ({ reply: { summary: '3 meetings, 1 deadline' } }));
 *
 * const result = await ceo.send({ to: 'secretary', message: 'today summary?' });
 * console.log(result.ok && result.reply); // { summary: '3 meetings, 1 deadline' }
 * console.log(result.ok && result.roundsLeft); // 4
 * ceo.close();
 * secretary.close();
 * ```
 */
export function createPeers(options: PeersOptions): Peers {
  const { self, topology } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const nextId = options.generateId ?? generateId;
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_CONVERSATION_ROUNDS;
  const defaultTimeoutMs = assertTimeoutMs(options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS, 'timeoutMs');
  const conversationMs = assertTimeoutMs(options.conversationMs ?? DEFAULT_CONVERSATION_MS, 'conversationMs');
  const maxConversations = options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS;
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? `peers:${self}:`;
  const conversations = createConversations(store, clock, { maxRounds, conversationMs });
  const events = createEmitter<PeersEvents>();
  /** Conversations this instance opened, by id → expiry: the `maxConversations` bound. */
  const live = new Map<string, number>();
  let requestId = '';
  let closed = false;
  const correlator = createCorrelator({
    self,
    protocols: [peerSendProtocol],
    send: options.send,
    clock,
    generateId: () => requestId, // set just before each request: `<conversation>#<round>`
    ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
    ...(options.store === undefined ? {} : { store: options.store, keyPrefix: `${prefix}req:` }),
  });
  const responder = createResponder({ self, topology, correlator, events, maxRounds, maxChars });

  function refuse(
    to: string,
    code: PeerRefusal['code'],
    message: string,
    where: { conversationId?: string; round?: number; peerCode?: string } = {},
  ): PeerRefusal {
    events.emit('refused', { direction: 'out', code, message, peer: to, ...where });
    return { ok: false, code, message, ...where };
  }

  /** Decides a send on the stored conversation (a new one only while fewer than `maxConversations` are open). */
  async function claim(key: string, input: SendInput): Promise<SendDecision> {
    const now = clock.now();
    for (const [id, expiresAt] of live) if (expiresAt <= now) live.delete(id);
    const admit = (): string | undefined =>
      live.size >= maxConversations
        ? `${live.size} conversations are open (maxConversations ${maxConversations})`
        : undefined;
    const decision = await conversations.claim(key, input, admit);
    if (decision.ok && !decision.replay && decision.round === 1) {
      live.set(input.conversationId, decision.record.expiresAt);
    }
    return decision;
  }

  function ask(o: PeerSendOptions, conversationId: string, round: number): Promise<Reply<PeerSendAnswer>> {
    requestId = `${conversationId}#${round}`;
    return correlator.request(peerSendProtocol, {
      to: o.to,
      payload: { conversation_id: conversationId, round, message: o.message },
      timeoutMs: o.timeoutMs ?? defaultTimeoutMs,
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    });
  }

  async function send(o: PeerSendOptions): Promise<PeerSendResult> {
    const to = String(o.to);
    if (closed) return refuse(to, 'closed', 'This endpoint is closed');
    if (o.timeoutMs !== undefined) assertTimeoutMs(o.timeoutMs, 'timeoutMs');
    const conversationId = o.conversationId ?? nextId();
    const sendId = o.sendId ?? nextId();
    if (!ID_PATTERN.test(conversationId) || !ID_PATTERN.test(sendId) || !ID_PATTERN.test(to)) {
      return refuse(to, 'invalid_request', 'to, conversationId and sendId must be short ids');
    }
    let text: string;
    try {
      text = canonicalJson(o.message);
    } catch {
      return refuse(to, 'invalid_request', 'The message is not JSON', { conversationId });
    }
    if (text.length > maxChars) {
      return refuse(to, 'message_too_large', `The message has ${text.length} characters (max ${maxChars})`, {
        conversationId,
      });
    }
    const check = topology.check({
      from: self,
      to,
      expect_response: true,
      spawn_depth: topology.agent(self)?.depth ?? 0,
    });
    if (!check.ok) return refuse(to, check.code, check.message, { conversationId });
    const key = `${prefix}conv:${conversationId}`;
    const input = {
      conversationId,
      from: self,
      to,
      sendId,
      digest: canonicalJson({ to, message: o.message }),
    };
    let decision: SendDecision;
    try {
      decision = await claim(key, input);
    } catch (error) {
      return refuse(to, 'store_failed', messageOf(error), { conversationId });
    }
    if (!decision.ok) return refuse(to, decision.code, decision.message, { conversationId });
    const { round, entry } = decision;
    const where = { conversationId, round };
    if (entry.answer !== undefined) return success(conversationId, round, entry.answer, true);
    let reply: Reply<PeerSendAnswer>;
    try {
      reply = decision.replay
        ? ((await correlator
            .waitFor(`${conversationId}#${round}`, o.signal === undefined ? {} : { signal: o.signal })
            .catch((error: unknown) => {
              if (isParleyError(error, 'unknown_request')) return ask(o, conversationId, round); // claimed, never sent
              throw error;
            })) as Reply<PeerSendAnswer>) // the same protocol's reply
        : await ask(o, conversationId, round);
    } catch (error) {
      // Object(…).code: a CorrelateError's code, or nothing for anything else thrown.
      const code: PeerRefusalCode = CODE_OF[String(Object(error).code)] ?? 'store_failed';
      return refuse(to, code, messageOf(error), where);
    }
    if (!reply.approved) {
      const peerCode = String(reply.reason).slice(0, 64); // a rejection always has the peer's code
      return refuse(to, 'refused_by_peer', `${to} refused the send: ${peerCode}`, { ...where, peerCode });
    }
    const answer = { reply: reply.response.reply ?? null, end: reply.response.end === true };
    if (canonicalJson(answer.reply).length > maxChars) {
      return refuse(to, 'message_too_large', `The reply of ${to} is too large (max ${maxChars})`, where);
    }
    await conversations.saveAnswer(key, sendId, answer).catch(() => {}); // the reply is ours either way
    events.emit('replied', { conversationId, round, to, ended: answer.end });
    return success(conversationId, round, answer, false);
  }

  function success(
    conversationId: string,
    round: number,
    answer: { readonly reply: unknown; readonly end: boolean },
    replayed: boolean,
  ): PeerSendResult {
    const roundsLeft = answer.end ? 0 : maxRounds - round;
    return { ok: true, conversationId, round, reply: answer.reply, roundsLeft, ended: answer.end, replayed };
  }

  return {
    self,
    send,
    receive: (message) => correlator.receive(message),
    onMessage: responder.onMessage,
    async conversation(id) {
      const record = await conversations.read(`${prefix}conv:${id}`);
      if (record === undefined) return undefined;
      const { from, to, rounds, ended, startedAt, expiresAt } = record;
      return { id, from, to, rounds, maxRounds, ended, startedAt, expiresAt };
    },
    restore: () => correlator.restore(),
    on: (event, listener) => events.on(event, listener),
    close() {
      closed = true;
      correlator.close();
    },
  };
}

const CODE_OF: Partial<Record<string, PeerRefusalCode>> = {
  timeout: 'timeout',
  cancelled: 'cancelled',
  closed: 'closed',
  send_failed: 'send_failed',
  too_many_pending: 'too_many_pending',
  invalid_payload: 'invalid_request',
};

function checkOptions(options: PeersOptions): PeersOptions {
  const bad = (message: string): never => {
    throw new PeersError('invalid_argument', message);
  };
  if (typeof options !== 'object' || options === null) bad('createPeers needs options');
  if (typeof options.self !== 'string' || !ID_PATTERN.test(options.self)) bad('self must be a short id');
  const topology = options.topology as Partial<PeersOptions['topology']> | undefined;
  if (typeof topology?.check !== 'function' || typeof topology.agent !== 'function') {
    bad('topology must be a @parley/envelope topology (check and agent)');
  }
  if (typeof options.send !== 'function') bad('send must be a function');
  const limits = [
    ['maxRounds', options.maxRounds, MAX_ROUNDS_CAP],
    ['maxConversations', options.maxConversations, 1_000_000],
    ['maxMessageChars', options.maxMessageChars, 10_000_000],
    ['maxPending', options.maxPending, 1_000_000],
  ] as const;
  for (const [name, value, max] of limits) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > max)) {
      bad(`${name} must be an integer from 1 to ${max}`);
    }
  }
  return options;
}
