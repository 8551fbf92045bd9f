import { createManualClock, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createActor, defineRequestMachine, requestMachine } from '../src/index.js';

// The team-protocols seed: one pending → approved | rejected machine drives both the shutdown
// handshake and plan approval, each request tracked by its request_id.
describe('requestMachine (team protocols)', () => {
  it('drives a shutdown handshake and a plan approval with the same machine', () => {
    const clock = createManualClock();
    const nextId = createSequentialIds('req_');
    const shutdownRequests = new Map<
      string,
      ReturnType<
        typeof createActor<
          'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled',
          'approve' | 'reject' | 'expire' | 'cancel',
          { readonly reason?: string }
        >
      >
    >();
    const planRequests = new Map<
      string,
      ReturnType<
        typeof createActor<
          'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled',
          'approve' | 'reject' | 'expire' | 'cancel',
          { readonly reason?: string }
        >
      >
    >();
    const shutdownId = nextId();
    shutdownRequests.set(shutdownId, createActor(requestMachine, { clock }));
    const planId = nextId();
    planRequests.set(planId, createActor(requestMachine, { clock }));

    expect(shutdownRequests.get(shutdownId)?.send('approve')).toMatchObject({ ok: true, to: 'approved' });
    expect(planRequests.get(planId)?.send({ type: 'reject', reason: 'too risky' })).toMatchObject({
      ok: true,
      to: 'rejected',
    });
    expect(shutdownRequests.get(shutdownId)?.state).toBe('approved');
    expect(planRequests.get(planId)?.context).toEqual({ reason: 'too risky' });
  });

  it('settles once: a second answer is refused with machine_done', () => {
    const actor = createActor(requestMachine, { clock: createManualClock() });
    actor.send('approve');
    expect(actor.send('reject')).toMatchObject({ ok: false, code: 'machine_done', state: 'approved' });
    expect(actor.state).toBe('approved');
  });

  it.each([
    ['approve', 'approved'],
    ['reject', 'rejected'],
    ['expire', 'expired'],
    ['cancel', 'cancelled'],
  ] as const)('moves pending to a final state on %s', (event, state) => {
    const actor = createActor(requestMachine, { clock: createManualClock() });
    actor.send(event);
    expect(actor.state).toBe(state);
    expect(actor.done).toBe(true);
    expect(actor.context).toEqual({});
  });

  it('names its states and events', () => {
    expect(requestMachine.id).toBe('request');
    expect(requestMachine.states).toEqual(['pending', 'approved', 'rejected', 'expired', 'cancelled']);
    expect(requestMachine.events).toEqual(['approve', 'reject', 'expire', 'cancel']);
    expect(requestMachine.finalStates).toEqual(['approved', 'rejected', 'expired', 'cancelled']);
  });

  it('expires by itself when defined with a timeout, and not before', () => {
    const clock = createManualClock();
    const actor = createActor(defineRequestMachine({ id: 'shutdown', timeoutMs: 5_000 }), { clock });
    clock.advance(4_999);
    expect(actor.state).toBe('pending');
    clock.advance(1);
    expect(actor.state).toBe('expired');
    expect(actor.snapshot().machine).toBe('shutdown');
  });

  it('refuses an invalid timeout at definition', () => {
    expect(() => defineRequestMachine({ timeoutMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_definition' }),
    );
  });
});
