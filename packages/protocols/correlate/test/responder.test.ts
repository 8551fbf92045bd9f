import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CorrelateMessage,
  type CorrelatorOptions,
  createCorrelator,
  defineProtocol,
  planApprovalProtocol,
  shutdownProtocol,
} from '../src/index.js';
import { errorOf, recordEvents } from './helpers.js';

/** Alice alone, answering requests fed to her by hand; what she sends is kept in `sent`. */
function createAlice(options: Partial<CorrelatorOptions> = {}) {
  const clock = createManualClock({ now: 1_000 });
  const sent: CorrelateMessage[] = [];
  const alice = createCorrelator({
    self: 'alice',
    protocols: [shutdownProtocol, planApprovalProtocol],
    send: (message) => void sent.push(message),
    clock,
    ...options,
  });
  return { alice, clock, sent };
}

function incoming(id = 'r1', fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'request',
    request_id: id,
    protocol: 'shutdown',
    from: 'lead',
    to: 'alice',
    payload: {},
    deadline_at: 31_000,
    ...fields,
  };
}

describe('answering a request', () => {
  it('emits settled for a request it answers', async () => {
    const { alice } = createAlice();
    const events = recordEvents(alice);
    await alice.receive(incoming());
    alice.respond('r1', { approve: true });
    expect(events.settled).toEqual([
      { request: expect.objectContaining({ id: 'r1', role: 'responder', state: 'approved' }), remote: false },
    ]);
  });

  it('clears the deadline of a request once it is answered', async () => {
    const { alice, clock } = createAlice({ retainSettledMs: 0 });
    await alice.receive(incoming());
    expect(clock.pendingTimers()).toBe(1);
    alice.respond('r1', { approve: false });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('takes a new request as not waiting on a person', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    expect(alice.get('r1')).toMatchObject({ state: 'pending', waitingOnHuman: false });
  });

  it('keeps a request not waiting on a person after progress that does not say so', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    expect(alice.progress('r1', { note: 'working' })).toMatchObject({ waitingOnHuman: false });
  });

  it('sends a progress message with only the fields given', async () => {
    const { alice, sent } = createAlice();
    await alice.receive(incoming());
    alice.progress('r1');
    expect(sent).toStrictEqual([
      { kind: 'progress', request_id: 'r1', protocol: 'shutdown', from: 'alice', to: 'lead' },
    ]);
  });

  it('forgets the requests it was answering once closed', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    alice.close();
    expect(alice.list()).toEqual([]);
    expect(alice.get('r1')).toBeUndefined();
  });
});

describe('what respond and progress throw', () => {
  it('names itself in the details of closed', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    alice.close();
    expect(errorOf(() => alice.respond('r1', { approve: true }))).toMatchObject({
      code: 'closed',
      details: { self: 'alice' },
    });
  });

  it('names the request and its state in the details of not_pending', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    alice.respond('r1', { approve: true });
    expect(errorOf(() => alice.progress('r1'))).toMatchObject({
      code: 'not_pending',
      details: { requestId: 'r1', state: 'approved' },
    });
  });

  it('names the request in the details of unknown_request', () => {
    const { alice } = createAlice();
    expect(errorOf(() => alice.respond('nope', { approve: true }))).toMatchObject({
      code: 'unknown_request',
      details: { requestId: 'nope' },
    });
  });

  it('names the request in the details of send_failed', async () => {
    const { alice } = createAlice({
      send: () => {
        throw new Error('socket closed');
      },
    });
    await alice.receive(incoming());
    expect(errorOf(() => alice.respond('r1', { approve: true }))).toMatchObject({
      code: 'send_failed',
      details: { requestId: 'r1' },
      cause: new Error('socket closed'),
    });
  });

  it('names the request and the missing fields in the details of invalid_response', async () => {
    const { alice } = createAlice();
    await alice.receive(incoming());
    expect(errorOf(() => alice.respond('r1', {}))).toMatchObject({
      code: 'invalid_response',
      details: { requestId: 'r1', missingFields: ['approve'] },
    });
  });
});

describe('respond with an asynchronous response schema', () => {
  it('throws invalid_response saying the schema must be synchronous, and sends nothing', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({}),
      response: z.object({ approve: z.boolean() }).refine(async () => true),
    });
    const { alice, sent } = createAlice({ protocols: [slow] });
    await alice.receive(incoming('s1', { protocol: 'slow' }));
    expect(errorOf(() => alice.respond('s1', { approve: true }))).toMatchObject({
      code: 'invalid_response',
      details: { requestId: 's1' },
      message: expect.stringContaining('asynchronous'),
    });
    expect(sent).toEqual([]);
    expect(alice.get('s1')?.state).toBe('pending');
  });
});

describe('refused requests', () => {
  it.each([
    ['an id already in use', incoming('r1', { from: 'mallory' }), 'duplicate_request', 'already in use'],
    [
      'a payload that fails its schema',
      incoming('r2', { protocol: 'plan_approval' }),
      'invalid_payload',
      'schema',
    ],
    ['a request past its deadline', incoming('r3', { deadline_at: 1_000 }), 'late', 'deadline'],
    ['a request past maxPending', incoming('r4'), 'too_many_pending', 'requests to answer'],
    ['an unknown protocol', incoming('r5', { protocol: 'deploy' }), 'unknown_protocol', 'deploy'],
  ])('refuses %s, saying why', async (_name, message, code, why) => {
    const { alice } = createAlice({ maxPending: 1 });
    await alice.receive(incoming('r1'));
    const result = await alice.receive(message);
    expect(result).toMatchObject({ ok: false, code, kind: 'request', requestId: message.request_id });
    expect(result.ok === false && result.message).toContain(why);
  });
});
