import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '@parley/core';
import { type PeersEvents, PeersError, createPeers } from '../src/index.js';
import { createNet, type Net, settle } from './helpers.js';

let net: Net;
afterEach(() => {
  net.close();
  expect(net.clock.pendingTimers()).toBe(0);
});

function pair(): { net: Net; ceo: ReturnType<Net['add']>; secretary: ReturnType<Net['add']> } {
  net = createNet();
  const ceo = net.add('ceo');
  const secretary = net.add('secretary');
  secretary.onMessage((s) => ({ reply: { echo: s.message as JsonValue, round: s.round } }));
  return { net, ceo, secretary };
}

async function sendAndFlush(
  peers: ReturnType<Net['add']>,
  options: Parameters<ReturnType<Net['add']>['send']>[0],
) {
  const result = peers.send(options);
  await net.flush();
  return result;
}

describe('send between depth-0 agents', () => {
  it('blocks until the reply and reports the rounds left', async () => {
    const { ceo } = pair();
    const replied: PeersEvents['replied'][] = [];
    ceo.on('replied', (e) => replied.push(e));
    const result = await sendAndFlush(ceo, { to: 'secretary', message: 'summary?', conversationId: 'c1' });
    expect(result).toEqual({
      ok: true,
      conversationId: 'c1',
      round: 1,
      reply: { echo: 'summary?', round: 1 },
      roundsLeft: 4,
      ended: false,
      replayed: false,
    });
    expect(replied).toEqual([{ conversationId: 'c1', round: 1, to: 'secretary', ended: false }]);
    expect(net.sent.map((m) => `${m.kind} ${m.request_id}`)).toEqual(['request c1#1', 'response c1#1']);
  });

  it('allows five rounds, then refuses the sixth without sending it', async () => {
    const { ceo } = pair();
    for (let round = 1; round <= 5; round++) {
      const r = await sendAndFlush(ceo, { to: 'secretary', message: round, conversationId: 'c1' });
      expect(r).toMatchObject({ ok: true, round, roundsLeft: 5 - round });
    }
    const sent = net.sent.length;
    const sixth = await sendAndFlush(ceo, { to: 'secretary', message: 6, conversationId: 'c1' });
    expect(sixth).toMatchObject({ ok: false, code: 'round_limit', conversationId: 'c1' });
    expect(net.sent).toHaveLength(sent);
    expect(await ceo.conversation('c1')).toMatchObject({ rounds: 5, maxRounds: 5, ended: false });
  });

  it('ends a conversation when the peer says so', async () => {
    const { ceo, secretary } = pair();
    secretary.onMessage(() => ({ reply: 'that is all', end: true }));
    const first = await sendAndFlush(ceo, { to: 'secretary', message: 'hi', conversationId: 'c1' });
    expect(first).toMatchObject({ ok: true, ended: true, roundsLeft: 0 });
    const again = await sendAndFlush(ceo, { to: 'secretary', message: 'more?', conversationId: 'c1' });
    expect(again).toMatchObject({ ok: false, code: 'conversation_ended' });
  });

  it('opens a new conversation with a fresh id when none is given', async () => {
    const { ceo } = pair();
    const result = await sendAndFlush(ceo, { to: 'secretary', message: 'x' });
    expect(result).toMatchObject({ ok: true, conversationId: 'id_1', round: 1 });
    expect(await ceo.conversation('nope')).toBeUndefined();
  });
});

describe('deadlines', () => {
  it('refuses with timeout when no reply comes within timeoutMs', async () => {
    const { ceo, secretary } = pair();
    secretary.onMessage(() => new Promise(() => {}));
    const result = ceo.send({ to: 'secretary', message: 'x', timeoutMs: 5_000 });
    await net.advance(4_999);
    await net.advance(1);
    expect(await result).toMatchObject({ ok: false, code: 'timeout', round: 1 });
  });

  it('does not send an answer written after the deadline, and reports it on the answering side', async () => {
    const { ceo, secretary } = pair();
    let answer: (a: { reply: string }) => void = () => {};
    secretary.onMessage(() => new Promise((resolve) => (answer = resolve)));
    const refused: PeersEvents['refused'][] = [];
    secretary.on('refused', (e) => refused.push(e));
    const result = ceo.send({ to: 'secretary', message: 'x', timeoutMs: 1_000, conversationId: 'c1' });
    await net.flush();
    net.clock.advance(1_000);
    answer({ reply: 'too late' });
    await net.flush();
    expect(await result).toMatchObject({ ok: false, code: 'timeout' });
    expect(refused).toMatchObject([
      { direction: 'in', code: 'timeout', peer: 'ceo', conversationId: 'c1', round: 1 },
    ]);
    expect(net.sent.map((m) => m.kind)).toEqual(['request']);
  });

  it('refuses a send on an expired conversation, decided when sending', async () => {
    net = createNet();
    const ceo = net.add('ceo', { conversationMs: 60_000 });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1, conversationId: 'c1' })).toMatchObject({
      ok: true,
    });
    net.clock.advance(60_000);
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 2, conversationId: 'c1' })).toMatchObject({
      ok: false,
      code: 'conversation_expired',
    });
  });

  it('refuses with cancelled when the signal aborts', async () => {
    const { ceo, secretary } = pair();
    secretary.onMessage(() => new Promise(() => {}));
    const controller = new AbortController();
    const result = ceo.send({ to: 'secretary', message: 'x', signal: controller.signal });
    await net.flush();
    controller.abort(new Error('user left'));
    expect(await result).toMatchObject({ ok: false, code: 'cancelled' });
  });
});

describe('who may send', () => {
  it('refuses a send from a spawned (depth-1) agent', async () => {
    pair();
    const intern = net.add('intern');
    expect(await intern.send({ to: 'secretary', message: 'x' })).toMatchObject({
      ok: false,
      code: 'send_not_allowed',
    });
    expect(net.sent).toEqual([]);
  });

  it('refuses a send to a spawned agent and to an unknown one', async () => {
    const { ceo } = pair();
    expect(await ceo.send({ to: 'intern', message: 'x' })).toMatchObject({
      ok: false,
      code: 'send_not_allowed',
    });
    expect(await ceo.send({ to: 'ghost', message: 'x' })).toMatchObject({ ok: false, code: 'unknown_agent' });
  });

  it('refuses an incoming send whose sender the answering side does not know', async () => {
    const { ceo } = pair();
    const stranger = createPeers({
      self: 'cfo',
      topology: net.topology,
      clock: net.clock,
      send: (m) => net.wire.push(m),
    });
    net.endpoints.set('cfo', stranger);
    net.topology.finish('cfo');
    // cfo is gone from the topology the secretary checks, so its (forged) request is refused.
    net.wire.push({
      kind: 'request',
      request_id: 'x#1',
      protocol: 'sessions_send',
      from: 'cfo',
      to: 'secretary',
      payload: { conversation_id: 'x', round: 1, message: 'hi' },
      deadline_at: net.clock.now() + 1_000,
    });
    await net.flush();
    expect(net.sent.at(-1)).toMatchObject({ kind: 'response', response: { refused: 'unknown_agent' } });
    stranger.close();
    expect(ceo.self).toBe('ceo');
  });
});

describe('identity is content', () => {
  it('returns the stored reply for a retried send and sends nothing again', async () => {
    const { ceo } = pair();
    const send = { to: 'secretary', message: { q: 'summary' }, conversationId: 'c1', sendId: 's1' };
    expect(await sendAndFlush(ceo, send)).toMatchObject({ ok: true, round: 1, replayed: false });
    const sent = net.sent.length;
    expect(await sendAndFlush(ceo, send)).toMatchObject({
      ok: true,
      round: 1,
      replayed: true,
      reply: { echo: { q: 'summary' } },
    });
    expect(net.sent).toHaveLength(sent);
    expect(await ceo.conversation('c1')).toMatchObject({ rounds: 1 });
  });

  it('refuses a reused send id with other content', async () => {
    const { ceo } = pair();
    await sendAndFlush(ceo, { to: 'secretary', message: 'a', conversationId: 'c1', sendId: 's1' });
    expect(
      await sendAndFlush(ceo, { to: 'secretary', message: 'b', conversationId: 'c1', sendId: 's1' }),
    ).toMatchObject({
      ok: false,
      code: 'id_reused',
    });
  });

  it('refuses a conversation id reused with another peer', async () => {
    const { ceo } = pair();
    net.add('cfo').onMessage(() => ({ reply: 'ok' }));
    await sendAndFlush(ceo, { to: 'secretary', message: 'a', conversationId: 'c1' });
    expect(await sendAndFlush(ceo, { to: 'cfo', message: 'a', conversationId: 'c1' })).toMatchObject({
      ok: false,
      code: 'id_reused',
    });
  });
});

describe('bounds', () => {
  it('refuses a new conversation past maxConversations until one expires', async () => {
    net = createNet();
    const ceo = net.add('ceo', { maxConversations: 1, conversationMs: 10_000 });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1, conversationId: 'a' })).toMatchObject({
      ok: true,
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1, conversationId: 'b' })).toMatchObject({
      ok: false,
      code: 'too_many_conversations',
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 2, conversationId: 'a' })).toMatchObject({
      ok: true,
    });
    net.clock.advance(10_000);
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1, conversationId: 'b' })).toMatchObject({
      ok: true,
    });
  });

  it('refuses a message over maxMessageChars before sending, and one the peer finds too large', async () => {
    net = createNet();
    const ceo = net.add('ceo', { maxMessageChars: 20 });
    net.add('secretary', { maxMessageChars: 10 }).onMessage(() => ({ reply: 'ok' }));
    expect(await ceo.send({ to: 'secretary', message: 'x'.repeat(30) })).toMatchObject({
      ok: false,
      code: 'message_too_large',
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 'x'.repeat(15) })).toMatchObject({
      ok: false,
      code: 'refused_by_peer',
      peerCode: 'message_too_large',
    });
  });

  it('refuses a reply over the limit on either side', async () => {
    net = createNet();
    const ceo = net.add('ceo', { maxMessageChars: 10 });
    const secretary = net.add('secretary', { maxMessageChars: 20 });
    secretary.onMessage(() => ({ reply: 'y'.repeat(15) }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 'x' })).toMatchObject({
      ok: false,
      code: 'message_too_large',
    });
    secretary.onMessage(() => ({ reply: 'y'.repeat(30) }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 'x' })).toMatchObject({
      ok: false,
      code: 'refused_by_peer',
      peerCode: 'message_too_large',
    });
  });

  it('refuses a round past the limit of the answering side', async () => {
    net = createNet();
    const ceo = net.add('ceo');
    net.add('secretary', { maxRounds: 1 }).onMessage(() => ({ reply: 'ok' }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1, conversationId: 'c' })).toMatchObject({
      ok: true,
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 2, conversationId: 'c' })).toMatchObject({
      ok: false,
      code: 'refused_by_peer',
      peerCode: 'round_limit',
    });
  });

  it('refuses past maxPending rounds waiting at once', async () => {
    net = createNet();
    const ceo = net.add('ceo', { maxPending: 1 });
    net.add('secretary').onMessage(() => new Promise(() => {}));
    void ceo.send({ to: 'secretary', message: 1, timeoutMs: 1_000 });
    await settle();
    expect(await ceo.send({ to: 'secretary', message: 2 })).toMatchObject({
      ok: false,
      code: 'too_many_pending',
    });
    await net.advance(1_000);
  });
});

describe('refused as data', () => {
  it('refuses bad ids and a message that is not JSON', async () => {
    const { ceo } = pair();
    expect(await ceo.send({ to: 'secretary', message: 'x', conversationId: 'has space' })).toMatchObject({
      code: 'invalid_request',
    });
    expect(await ceo.send({ to: 'secretary', message: 'x', sendId: '' })).toMatchObject({
      code: 'invalid_request',
    });
    // @ts-expect-error not JSON
    expect(await ceo.send({ to: 'secretary', message: () => 1 })).toMatchObject({ code: 'invalid_request' });
    expect(net.sent).toEqual([]);
  });

  it('refuses through the peer: nobody listening, a failing handler, a reply that is not JSON', async () => {
    const { ceo, secretary } = pair();
    const stop = secretary.onMessage(() => {
      throw new Error('model down');
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1 })).toMatchObject({
      code: 'refused_by_peer',
      peerCode: 'handler_failed',
    });
    secretary.onMessage(() => ({ reply: (() => 1) as unknown as string }));
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1 })).toMatchObject({
      code: 'refused_by_peer',
      peerCode: 'handler_failed',
    });
    secretary.onMessage(() => {
      throw 'not an Error';
    });
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1 })).toMatchObject({
      code: 'refused_by_peer',
      peerCode: 'handler_failed',
    });
    stop(); // not the current handler: changes nothing
    secretary.onMessage(() => ({ reply: 'ok' }))();
    expect(await sendAndFlush(ceo, { to: 'secretary', message: 1 })).toMatchObject({
      code: 'refused_by_peer',
      peerCode: 'not_listening',
    });
  });

  it('refuses with send_failed when the transport throws', async () => {
    net = createNet();
    const ceo = net.add('ceo', {
      send: () => {
        throw new Error('socket closed');
      },
    });
    expect(await ceo.send({ to: 'secretary', message: 1 })).toMatchObject({
      ok: false,
      code: 'send_failed',
      round: 1,
    });
  });

  it('refuses with closed after close, and a send waiting when it closes', async () => {
    const { ceo, secretary } = pair();
    secretary.onMessage(() => new Promise(() => {}));
    const waiting = ceo.send({ to: 'secretary', message: 1 });
    await net.flush();
    ceo.close();
    expect(await waiting).toMatchObject({ ok: false, code: 'closed' });
    expect(await ceo.send({ to: 'secretary', message: 1 })).toMatchObject({ ok: false, code: 'closed' });
  });

  it('reports an answer the closed answering side can no longer send', async () => {
    const { ceo, secretary } = pair();
    let answer: (a: { reply: string }) => void = () => {};
    secretary.onMessage(() => new Promise((resolve) => (answer = resolve)));
    const refused: PeersEvents['refused'][] = [];
    secretary.on('refused', (e) => refused.push(e));
    const result = ceo.send({ to: 'secretary', message: 1, timeoutMs: 1_000 });
    await net.flush();
    secretary.close();
    answer({ reply: 'bye' });
    await settle();
    expect(refused.map((e) => e.code)).toEqual(['closed']);
    await net.advance(1_000);
    expect(await result).toMatchObject({ code: 'timeout' });
  });
});

describe('a reply without a body', () => {
  it('reads as null', async () => {
    net = createNet();
    const ceo = net.add('ceo');
    const r = ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    await net.flush();
    const request = net.sent[0];
    expect(request?.kind).toBe('request');
    await ceo.receive({
      kind: 'response',
      request_id: 'c1#1',
      protocol: 'sessions_send',
      from: 'secretary',
      to: 'ceo',
      response: {},
    });
    expect(await r).toMatchObject({ ok: true, reply: null, ended: false });
  });
});

describe('createPeers options', () => {
  it('throws invalid_argument for misuse', () => {
    net = createNet();
    const base = { self: 'ceo', topology: net.topology, send: () => {} };
    const bad = [
      { ...base, self: '' },
      { ...base, topology: {} },
      { ...base, send: 1 },
      { ...base, maxRounds: 21 },
      { ...base, maxConversations: 0 },
      { ...base, maxMessageChars: 1.5 },
    ];
    for (const options of bad) {
      // @ts-expect-error misuse on purpose
      expect(() => createPeers(options)).toThrow(PeersError);
    }
    // @ts-expect-error misuse on purpose
    expect(() => createPeers(null)).toThrow(PeersError);
  });
});
