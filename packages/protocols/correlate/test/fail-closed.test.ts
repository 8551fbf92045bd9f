import { createManualClock, createSequentialIds } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCorrelator, defineProtocol, shutdownProtocol } from '../src/index.js';
import { createLead, flush, recordEvents, reply, trackedSignal } from './helpers.js';

const deploy = defineProtocol('deploy', {
  request: z.object({ service: z.string() }),
  response: z.object({ go: z.boolean() }),
});

describe('the default decide', () => {
  it('[SETTLE-07] rejects a response with no boolean approve field instead of approving it', async () => {
    const lead = createLead({ protocols: [deploy], generateId: createSequentialIds('d_') });
    const promise = lead.request(deploy, { to: 'ops', payload: { service: 'api' } });
    const result = await lead.receive(reply('d_1', { go: false }, 'ops', 'deploy'));
    expect(result).toMatchObject({ ok: true, state: 'rejected' });
    await expect(promise).resolves.toMatchObject({ approved: false, reason: 'no_verdict' });
    lead.close();
  });

  it('[SETTLE-07] answers a request with a rejection when the response gives no verdict', async () => {
    const sent: unknown[] = [];
    const ops = createCorrelator({ self: 'ops', protocols: [deploy], send: (m) => void sent.push(m) });
    await ops.receive({
      kind: 'request',
      request_id: 'q1',
      protocol: 'deploy',
      from: 'lead',
      to: 'ops',
      payload: { service: 'api' },
      deadline_at: Date.now() + 60_000,
    });
    expect(ops.respond('q1', { go: true })).toMatchObject({ state: 'rejected', reason: 'no_verdict' });
    ops.close();
  });
});

describe('a handle handler that fails asynchronously', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('[SETTLE-08] reports a rejecting async handler as handler_failed and keeps the settlement', async () => {
    const lead = createLead({ generateId: createSequentialIds('r_') });
    const events = recordEvents(lead);
    const boom = new Error('handler down');
    lead.handle(shutdownProtocol, async () => {
      throw boom;
    });
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    expect(await lead.receive(reply('r_1', { approve: true }))).toMatchObject({
      ok: true,
      state: 'approved',
    });
    await expect(promise).resolves.toMatchObject({ state: 'approved' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.error).toEqual([{ code: 'handler_failed', requestId: 'r_1', error: boom }]);
    expect(unhandled).toEqual([]);
    expect(lead.get('r_1')?.state).toBe('approved');
    lead.close();
  });
});

describe('a user schema that throws', () => {
  const exploding = z.object({ approve: z.boolean() }).transform((): { approve: boolean } => {
    throw new Error('transform exploded');
  });

  it('[SETTLE-09] refuses a response whose async schema throws instead of rejecting receive', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({}),
      response: exploding.refine(async () => true),
    });
    const lead = createLead({ protocols: [slow], generateId: createSequentialIds('s_') });
    const events = recordEvents(lead);
    void lead.request(slow, { to: 'alice', payload: {} }).catch(() => {});
    const result = await lead.receive(reply('s_1', { approve: true }, 'alice', 'slow'));
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(events.error.map((e) => e.code)).toEqual(['handler_failed']);
    expect(lead.get('s_1')?.state).toBe('pending');
    lead.close();
  });

  it('[SETTLE-09] refuses a request whose async schema throws instead of rejecting receive', async () => {
    const slow = defineProtocol('slow', {
      request: z
        .object({})
        .refine(async () => true)
        .transform(() => {
          throw new Error('transform exploded');
        }),
      response: z.object({ approve: z.boolean() }),
    });
    const alice = createLead({ self: 'alice', protocols: [slow] });
    const result = await alice.receive({
      kind: 'request',
      request_id: 'x',
      protocol: 'slow',
      from: 'lead',
      to: 'alice',
      payload: {},
      deadline_at: 60_000,
    });
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(alice.stats().incoming).toBe(0);
    alice.close();
  });
});

describe('maxPending with an async request schema', () => {
  it('[SETTLE-10] reserves the place before the schema is awaited: 10 requests with a limit of 2 leave 2 pending', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({}).refine(async () => true),
      response: z.object({ approve: z.boolean() }),
    });
    const lead = createLead({ protocols: [slow], maxPending: 2 });
    const outcomes = Array.from({ length: 10 }, () =>
      lead.request(slow, { to: 'alice', payload: {} }).then(
        () => 'settled',
        (error: { code: string }) => error.code,
      ),
    );
    await flush();
    expect(lead.stats().pending).toBe(2);
    lead.close();
    const codes = await Promise.all(outcomes);
    expect(codes.filter((c) => c === 'too_many_pending')).toHaveLength(8);
  });

  it('[SETTLE-10] frees a reserved place when the async schema refuses the payload', async () => {
    const slow = defineProtocol('slow', {
      request: z.object({ n: z.number() }).refine(async (v) => v.n > 0),
      response: z.object({ approve: z.boolean() }),
    });
    const lead = createLead({ protocols: [slow], maxPending: 1 });
    await expect(lead.request(slow, { to: 'alice', payload: { n: 0 } })).rejects.toMatchObject({
      code: 'invalid_payload',
    });
    void lead.request(slow, { to: 'alice', payload: { n: 1 } }).catch(() => {});
    await flush();
    expect(lead.stats().pending).toBe(1);
    lead.close();
  });
});

describe('one AbortSignal shared by many requests', () => {
  it('[SETTLE-11] keeps one abort listener on a signal shared by 50 requests and waits, and no warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { controller, live } = trackedSignal();
      const lead = createLead({ clock: createManualClock({ now: 1_000 }), maxPending: 100 });
      const signal = controller.signal;
      const promises = Array.from({ length: 50 }, () =>
        lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal }),
      );
      const waits = promises.map((p) => lead.waitFor(p.id, { signal }));
      expect(live.size).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      controller.abort(new Error('stop'));
      const codes = await Promise.all(
        [...promises, ...waits].map((p) =>
          p.then(
            () => 'ok',
            (e: { code: string }) => e.code,
          ),
        ),
      );
      expect(new Set(codes)).toEqual(new Set(['cancelled']));
      expect(live.size).toBe(0);
      lead.close();
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('[SETTLE-11] removes the shared listener once the last request on the signal settles', async () => {
    const { controller, live } = trackedSignal();
    const lead = createLead({ generateId: createSequentialIds('r_') });
    const signal = controller.signal;
    const first = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal });
    const second = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal });
    expect(live.size).toBe(1);
    await lead.receive(reply('r_1', { approve: true }));
    expect(live.size).toBe(1);
    await lead.receive(reply('r_2', { approve: false }));
    expect(live.size).toBe(0);
    await expect(first).resolves.toMatchObject({ state: 'approved' });
    await expect(second).resolves.toMatchObject({ state: 'rejected' });
    lead.close();
  });
});

describe('request ids', () => {
  it('[SETTLE-12] gives the caller the id of the request it sent', async () => {
    const lead = createLead({ generateId: createSequentialIds('r_') });
    const first = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const second = lead.request(shutdownProtocol, { to: 'bob', payload: {} });
    expect([first.id, second.id]).toEqual(['r_1', 'r_2']);
    await lead.receive(reply(second.id, { approve: true }, 'bob'));
    await expect(second).resolves.toMatchObject({ requestId: 'r_2', state: 'approved' });
    expect(lead.get(first.id)?.state).toBe('pending');
    lead.close();
    await expect(first).rejects.toMatchObject({ code: 'closed' });
  });
});
