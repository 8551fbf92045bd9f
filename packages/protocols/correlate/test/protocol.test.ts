import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CorrelateMessage,
  createCorrelator,
  defineProtocol,
  planApprovalProtocol,
  shutdownProtocol,
} from '../src/index.js';
import { flush, reply } from './helpers.js';

describe('defineProtocol', () => {
  it('decides by a boolean approve field and a reason by default', () => {
    const p = defineProtocol('p', { request: z.unknown(), response: z.unknown() });
    expect(p.decide({ approve: false, reason: 'no' })).toEqual({ approve: false, reason: 'no' });
    expect(p.decide({ approve: true })).toEqual({ approve: true });
    expect(p.decide({ ok: 1 })).toEqual({ approve: false, reason: 'no_verdict' });
    expect(p.decide({ approve: 'yes', reason: 'sure' })).toEqual({ approve: false, reason: 'no_verdict' });
    expect(p.decide('fine')).toEqual({ approve: false, reason: 'no_verdict' });
  });

  it('refuses an empty name, schemas that are not Standard Schemas and bad deadlines', () => {
    expect(() => defineProtocol('', { request: z.string(), response: z.string() })).toThrowError(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => defineProtocol('p', { request: {} as never, response: z.string() })).toThrowError(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() =>
      defineProtocol('p', { request: z.string(), response: z.string(), timeoutMs: 0 }),
    ).toThrowError(expect.objectContaining({ code: 'invalid_timeout' }));
    const ok = defineProtocol('p', {
      request: z.string(),
      response: z.string(),
      humanTimeoutMs: 5,
      maxTotalMs: 10,
    });
    expect([ok.humanTimeoutMs, ok.maxTotalMs]).toEqual([5, 10]);
  });

  it('ships the seed protocols with approve/reject and reason', () => {
    expect(shutdownProtocol.name).toBe('shutdown');
    expect(planApprovalProtocol.name).toBe('plan_approval');
    expect(planApprovalProtocol.request['~standard'].validate({ plan: '' })).toHaveProperty('issues');
  });
});

describe('asynchronous schemas', () => {
  const Slow = z.object({ answer: z.string() }).refine(async (r) => r.answer !== 'bad', 'bad answer');
  const slow = defineProtocol('slow', {
    request: z.object({ q: z.string() }).refine(async (r) => r.q !== 'bad', 'bad question'),
    response: Slow,
    decide: (r) => ({ approve: r.answer === 'yes' }),
  });

  it('validates payloads and responses with async refinements on both sides', async () => {
    const wire: CorrelateMessage[] = [];
    const clock = createManualClock();
    const lead = createCorrelator({
      self: 'lead',
      protocols: [slow],
      send: (m) => void wire.push(m),
      clock,
      generateId: () => 's1',
    });
    const bob = createCorrelator({ self: 'bob', protocols: [slow], send: (m) => void wire.push(m), clock });
    await expect(lead.request(slow, { to: 'bob', payload: { q: 'bad' } })).rejects.toMatchObject({
      code: 'invalid_payload',
    });
    const promise = lead.request(slow, { to: 'bob', payload: { q: 'ok?' } });
    await flush();
    const request = wire.shift() as CorrelateMessage;
    expect(await bob.receive({ ...request, request_id: 'x', payload: { q: 'bad' } })).toMatchObject({
      code: 'invalid_payload',
    });
    expect(await bob.receive(request)).toMatchObject({ ok: true });
    expect(() => bob.respond('s1', { answer: 'yes' })).toThrowError(
      expect.objectContaining({ code: 'invalid_response' }),
    );
    expect(await lead.receive(reply('s1', { answer: 'bad' }, 'bob', 'slow'))).toMatchObject({
      code: 'invalid_response',
    });
    expect(await lead.receive(reply('s1', { answer: 'yes' }, 'bob', 'slow'))).toMatchObject({
      ok: true,
      state: 'approved',
    });
    await expect(promise).resolves.toMatchObject({ approved: true });
  });
});

describe('the responder side', () => {
  it('reports send failures of respond and progress and keeps the request pending', async () => {
    let broken = false;
    const wire: CorrelateMessage[] = [];
    const send = (m: CorrelateMessage): void => {
      if (broken) throw new Error('offline');
      wire.push(m);
    };
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send,
      generateId: () => 'q1',
      clock: createManualClock(),
    });
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      send,
      clock: createManualClock(),
    });
    const errors: string[] = [];
    alice.on('error', (e) => errors.push(e.code));
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await alice.receive(wire.shift());
    broken = true;
    expect(() => alice.respond('q1', { approve: true })).toThrowError(
      expect.objectContaining({ code: 'send_failed' }),
    );
    expect(() => alice.progress('q1')).toThrowError(expect.objectContaining({ code: 'send_failed' }));
    expect(errors).toEqual(['send_failed', 'send_failed']);
    expect(alice.get('q1')?.state).toBe('pending');
    broken = false;
    expect(alice.progress('q1', { waitingOnHuman: true }).waitingOnHuman).toBe(true);
    expect(alice.progress('q1').deadlineAt).toBe(24 * 60 * 60_000);
    expect(alice.respond('q1', { approve: true }).state).toBe('approved');
    expect(alice.list({ role: 'responder', state: 'approved' })).toHaveLength(1);
    expect(alice.list({ role: 'requester' })).toHaveLength(0);
    lead.close();
    alice.close();
  });

  it('reports a handler that throws as an error event and still settles', async () => {
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      generateId: () => 'h1',
    });
    const errors: unknown[] = [];
    lead.on('error', (e) => errors.push(e.code));
    const off = lead.handle(shutdownProtocol, () => {
      throw new Error('handler bug');
    });
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await lead.receive(reply('h1', { approve: true }));
    await expect(promise).resolves.toMatchObject({ state: 'approved' });
    expect(errors).toEqual(['handler_failed']);
    off();
    lead.close();
  });
});
