import { createMessageBus } from '@parley/bus';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type AuthorizeResult,
  type ConfirmAction,
  type ConfirmDecision,
  type ConfirmOutcome,
  createConfirmGate,
  parseReply,
  type ReplyVerdict,
} from '../src/index.js';

describe('confirm types', () => {
  it('resolves a request to a decision with a closed outcome union', () => {
    const gate = createConfirmGate({ bus: createMessageBus() });
    expectTypeOf(gate.request).returns.resolves.toEqualTypeOf<ConfirmDecision>();
    expectTypeOf<ConfirmDecision['outcome']>().toEqualTypeOf<ConfirmOutcome>();
    expectTypeOf<ConfirmOutcome>().toEqualTypeOf<
      'confirmed' | 'cancelled' | 'timed_out' | 'superseded' | 'aborted' | 'refused'
    >();
    expectTypeOf(gate.authorize).returns.resolves.toEqualTypeOf<AuthorizeResult>();
    expectTypeOf(parseReply).returns.toEqualTypeOf<ReplyVerdict>();
  });

  it('refuses malformed requests and options at compile time', () => {
    const gate = createConfirmGate({ bus: createMessageBus() });
    // @ts-expect-error requester is required
    void gate.request({ sessionKey: 'a:b', action: { name: 'x' }, summary: 's' });
    // @ts-expect-error args must be JSON
    const bad: ConfirmAction = { name: 'x', args: { f: () => 1 } };
    void bad;
    // @ts-expect-error unknown pending policy
    createConfirmGate({ bus: createMessageBus(), whenPending: 'drop' });
    // @ts-expect-error a bus is required
    createConfirmGate({});
  });

  it('exposes no way to resolve a confirmation other than through the bus', () => {
    const gate = createConfirmGate({ bus: createMessageBus() });
    expectTypeOf(gate).not.toHaveProperty('resolve');
    expectTypeOf(gate).not.toHaveProperty('confirm');
    expectTypeOf(gate).not.toHaveProperty('settle');
  });
});
