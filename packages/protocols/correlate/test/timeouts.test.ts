import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCorrelator, defineProtocol, planApprovalProtocol, shutdownProtocol } from '../src/index.js';
import { createTeam } from './helpers.js';

describe('deadlines', () => {
  it('expires a request when no reply arrives within timeoutMs and leaves no timer', async () => {
    const { lead, clock, record } = createTeam({ retainSettledMs: 0 });
    const events = record(lead);
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {}, timeoutMs: 5_000 });
    expect(lead.get('req_1')?.deadlineAt).toBe(6_000);
    clock.advance(4_999);
    expect(lead.get('req_1')?.state).toBe('pending');
    clock.advance(1);
    const error = await promise.catch((e: unknown) => e);
    expect(isParleyError(error, 'timeout')).toBe(true);
    expect(events.settled.map((e) => e.request.state)).toEqual(['expired']);
    expect(lead.stats()).toMatchObject({ pending: 0, settled: 0 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps many deadlines on one clock timer', () => {
    const { lead, clock } = createTeam();
    for (let i = 0; i < 50; i++)
      void lead.request(shutdownProtocol, { to: 'alice', payload: {}, timeoutMs: 1_000 + i }).catch(() => {});
    expect(clock.pendingTimers()).toBe(1);
    lead.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives a request waiting on a human its own, longer deadline', () => {
    const { lead } = createTeam({ humanTimeoutMs: 600_000 });
    void lead
      .request(planApprovalProtocol, { to: 'alice', payload: { plan: 'p' }, waitingOnHuman: true })
      .catch(() => {});
    expect(lead.get('req_1')).toMatchObject({ waitingOnHuman: true, deadlineAt: 601_000 });
    lead.close();
  });

  it('extends the deadline on progress, switches to the human deadline, and never past the maximum total', async () => {
    const { lead, alice, deliver, clock, record } = createTeam({
      timeoutMs: 10_000,
      humanTimeoutMs: 100_000,
      maxTotalMs: 150_000,
    });
    const events = record(lead);
    const promise = lead.request(planApprovalProtocol, { to: 'alice', payload: { plan: 'p' } });
    await deliver();
    clock.advance(9_000);
    alice.progress('req_1', { note: 'thinking' });
    expect(await deliver()).toMatchObject({ ok: true, kind: 'progress' });
    expect(lead.get('req_1')?.deadlineAt).toBe(1_000 + 9_000 + 10_000);
    alice.progress('req_1', { waitingOnHuman: true, note: 'asked the owner' });
    await deliver();
    expect(lead.get('req_1')).toMatchObject({ waitingOnHuman: true, deadlineAt: 1_000 + 9_000 + 100_000 });
    clock.advance(99_000);
    alice.progress('req_1');
    await deliver();
    expect(lead.get('req_1')?.deadlineAt).toBe(1_000 + 150_000); // capped by maxTotalMs
    expect(events.progress.map((e) => e.note)).toEqual(['thinking', 'asked the owner', undefined]);
    clock.advance(150_000);
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    // The responder keeps its record until the most the requester may wait (its own maxTotalMs).
    expect(alice.get('req_1')).toMatchObject({ state: 'pending', deadlineAt: 1_000 + 24 * 60 * 60_000 });
  });

  it('refuses progress from the wrong party and progress after settlement', async () => {
    const { lead, clock } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    const note = { kind: 'progress', request_id: 'req_1', protocol: 'shutdown', from: 'mallory', to: 'lead' };
    expect(await lead.receive(note)).toMatchObject({ code: 'wrong_sender' });
    expect(await lead.receive({ ...note, from: 'alice', note: 5 })).toMatchObject({ code: 'malformed' });
    expect(await lead.receive({ ...note, from: 'alice', waiting_on_human: 'yes' })).toMatchObject({
      code: 'malformed',
    });
    clock.advance(30_000);
    expect(await lead.receive({ ...note, from: 'alice' })).toMatchObject({ code: 'late' });
  });

  it('uses the protocol deadlines before the correlator defaults', () => {
    const slow = defineProtocol('slow', {
      request: shutdownProtocol.request,
      response: shutdownProtocol.response,
      timeoutMs: 90_000,
      maxTotalMs: 100_000,
    });
    const lead = createCorrelator({
      self: 'lead',
      protocols: [slow],
      send: () => {},
      clock: createManualClock(),
      generateId: () => 's1',
    });
    void lead.request(slow, { to: 'alice', payload: {} }).catch(() => {});
    expect(lead.get('s1')).toMatchObject({ deadlineAt: 90_000, maxDeadlineAt: 100_000 });
    lead.close();
  });
});

describe('cancellation', () => {
  it('cancels a request when its signal aborts and removes its listener and deadline', async () => {
    const { lead, clock } = createTeam({ retainSettledMs: 0 });
    const controller = new AbortController();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal });
    controller.abort(new Error('user left'));
    const error = await promise.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'cancelled', cause: new Error('user left') });
    expect(clock.pendingTimers()).toBe(0);
    expect(lead.stats().pending).toBe(0);
  });

  it('fails at once, sending nothing, when the signal is already aborted', async () => {
    const team = createTeam();
    const { lead } = team;
    const error = await lead
      .request(shutdownProtocol, { to: 'alice', payload: {}, signal: AbortSignal.abort('no') })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'cancelled', cause: 'no' });
    expect(team.wire).toHaveLength(0);
    expect(lead.stats().pending).toBe(0);
  });

  it('cancels by id and reports false for what is not pending', async () => {
    const { lead } = createTeam();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    expect(await lead.cancel('req_1', 'not needed')).toBe(true);
    await expect(promise).rejects.toMatchObject({ code: 'cancelled' });
    expect(lead.get('req_1')).toMatchObject({ state: 'cancelled', reason: 'not needed' });
    expect(await lead.cancel('req_1')).toBe(false);
  });

  it('closes: rejects every local promise with closed and refuses new work', async () => {
    const { lead, clock } = createTeam();
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waiting = lead.waitFor('req_1');
    lead.close();
    lead.close();
    await expect(promise).rejects.toMatchObject({ code: 'closed' });
    await expect(waiting).rejects.toMatchObject({ code: 'closed' });
    await expect(lead.request(shutdownProtocol, { to: 'alice', payload: {} })).rejects.toMatchObject({
      code: 'closed',
    });
    await expect(lead.waitFor('req_1')).rejects.toMatchObject({ code: 'closed' });
    expect(await lead.receive({})).toMatchObject({ code: 'closed' });
    expect(() => lead.respond('x', {})).toThrowError(expect.objectContaining({ code: 'closed' }));
    expect(await lead.cancel('req_1')).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fails with send_failed and cancels the request when the transport throws', async () => {
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      clock: createManualClock(),
      send: () => {
        throw new Error('socket closed');
      },
    });
    const errors: string[] = [];
    lead.on('error', (e) => errors.push(e.code));
    await expect(lead.request(shutdownProtocol, { to: 'alice', payload: {} })).rejects.toMatchObject({
      code: 'send_failed',
    });
    expect(errors).toEqual(['send_failed']);
    expect(lead.list()[0]).toMatchObject({ state: 'cancelled', reason: 'send_failed' });
  });
});

describe('waitFor', () => {
  it('resolves for a host that does not hold the promise, and at once once settled', async () => {
    const { lead, alice, deliver } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waiting = lead.waitFor('req_1');
    await deliver();
    alice.respond('req_1', { approve: false, reason: 'busy' });
    await deliver();
    await expect(waiting).resolves.toMatchObject({ state: 'rejected', reason: 'busy' });
    await expect(lead.waitFor('req_1')).resolves.toMatchObject({ state: 'rejected' });
  });

  it('rejects for unknown, expired and aborted waits without cancelling the request', async () => {
    const { lead, clock } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await expect(lead.waitFor('nope')).rejects.toMatchObject({ code: 'unknown_request' });
    const controller = new AbortController();
    const waiting = lead.waitFor('req_1', { signal: controller.signal });
    const other = lead.waitFor('req_1');
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    await expect(lead.waitFor('req_1', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(lead.get('req_1')?.state).toBe('pending');
    clock.advance(30_000);
    await expect(other).rejects.toMatchObject({ code: 'timeout' });
    await expect(lead.waitFor('req_1')).rejects.toMatchObject({ code: 'timeout' });
  });
});

describe('bounds', () => {
  it('fails with too_many_pending past maxPending, and accepts again once one settles', async () => {
    const { lead } = createTeam({ maxPending: 2 });
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    const error = await lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_many_pending', details: { limit: 2 } });
    await lead.cancel('req_1');
    expect(lead.stats().pending).toBe(1);
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    expect(lead.stats().pending).toBe(2);
    lead.close();
  });

  it('keeps settled records for retainSettledMs, at most maxSettled, then drops them', async () => {
    const { lead, clock } = createTeam({ retainSettledMs: 10_000, maxSettled: 2 });
    for (let i = 1; i <= 3; i++) {
      void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
      await lead.cancel(`req_${i}`);
      clock.advance(1_000);
    }
    expect(lead.get('req_1')).toBeUndefined(); // past maxSettled
    expect(lead.list().map((r) => r.id)).toEqual(['req_2', 'req_3']);
    clock.advance(8_000);
    expect(lead.list().map((r) => r.id)).toEqual(['req_3']);
    clock.advance(1_000);
    expect(lead.list()).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('misuse', () => {
  it('rejects unregistered protocols, bad payloads and a missing recipient', async () => {
    const { lead } = createTeam({}, [shutdownProtocol]);
    await expect(
      lead.request(planApprovalProtocol, { to: 'alice', payload: { plan: 'p' } }),
    ).rejects.toMatchObject({ code: 'unknown_protocol' });
    await expect(
      lead.request(planApprovalProtocol, { to: 'alice', payload: { plan: 'p' } }),
    ).rejects.toMatchObject({ code: 'unknown_protocol' });
    const bad = await lead
      .request(shutdownProtocol, { to: 'alice', payload: { reason: 5 } as never })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'invalid_payload', details: { protocol: 'shutdown' } });
    await expect(lead.request(shutdownProtocol, { to: '', payload: {} })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(
      lead.request(shutdownProtocol, { to: 'a', payload: {}, timeoutMs: -1 }),
    ).rejects.toMatchObject({ code: 'invalid_timeout' });
    expect(lead.stats().pending).toBe(0);
  });

  it('refuses bad options at creation', () => {
    const send = (): void => {};
    expect(() => createCorrelator({ self: '', protocols: [], send })).toThrowError(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createCorrelator({ self: 'a', protocols: [], send, maxPending: 0 })).toThrowError(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    const twin = defineProtocol('shutdown', {
      request: shutdownProtocol.request,
      response: shutdownProtocol.response,
    });
    expect(() => createCorrelator({ self: 'a', protocols: [shutdownProtocol, twin], send })).toThrowError(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('refuses an id generator that repeats itself', async () => {
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      generateId: () => 'same',
    });
    void lead.request(shutdownProtocol, { to: 'a', payload: {} }).catch(() => {});
    await expect(lead.request(shutdownProtocol, { to: 'a', payload: {} })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    lead.close();
  });
});
