import { fc, test } from '@fast-check/vitest';
import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { describe, expect } from 'vitest';
import { createCorrelator, shutdownProtocol, type TrackedRequest } from '../src/index.js';
import { flush, reply } from './helpers.js';

const N = 4;
const step = fc.oneof(
  fc.record({ type: fc.constant('reply' as const), id: fc.nat(N - 1), approve: fc.boolean() }),
  fc.record({ type: fc.constant('bad-reply' as const), id: fc.nat(N - 1) }),
  fc.record({ type: fc.constant('wrong-sender' as const), id: fc.nat(N - 1) }),
  fc.record({ type: fc.constant('progress' as const), id: fc.nat(N - 1) }),
  fc.record({ type: fc.constant('abort' as const), id: fc.nat(N - 1) }),
  fc.record({ type: fc.constant('cancel' as const), id: fc.nat(N - 1) }),
  fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 20_000 }) }),
);

describe('any interleaving of replies, timeouts and aborts', () => {
  test.prop([fc.array(step, { maxLength: 40 }), fc.boolean()], { numRuns: 150 })(
    'settles each request exactly once and leaves no timer and no pending entry',
    async (steps, durable) => {
      const clock = createManualClock({ now: 0 });
      const store = durable ? createMemoryStore({ clock }) : undefined;
      const lead = createCorrelator({
        self: 'lead',
        protocols: [shutdownProtocol],
        send: () => {},
        clock,
        generateId: createSequentialIds('r'),
        timeoutMs: 10_000,
        maxTotalMs: 25_000,
        retainSettledMs: 1_000,
        ...(store === undefined ? {} : { store }),
      });
      const settledEvents: TrackedRequest[] = [];
      lead.on('settled', (e) => settledEvents.push(e.request));
      const outcomes = new Map<string, string[]>();
      const controllers: AbortController[] = [];
      for (let i = 1; i <= N; i++) {
        const controller = new AbortController();
        controllers.push(controller);
        const id = `r${i}`;
        outcomes.set(id, []);
        lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal }).then(
          (r) => outcomes.get(id)?.push(r.state),
          (e: { code: string }) => outcomes.get(id)?.push(e.code),
        );
      }
      await flush();
      for (const s of steps) {
        if (s.type === 'advance') clock.advance(s.ms);
        else if (s.type === 'abort') controllers[s.id]?.abort();
        else if (s.type === 'cancel') await lead.cancel(`r${s.id + 1}`);
        else if (s.type === 'reply') await lead.receive(reply(`r${s.id + 1}`, { approve: s.approve }));
        else if (s.type === 'bad-reply') await lead.receive(reply(`r${s.id + 1}`, { approve: 'maybe' }));
        else if (s.type === 'wrong-sender')
          await lead.receive(reply(`r${s.id + 1}`, { approve: true }, 'mallory'));
        else
          await lead.receive({
            kind: 'progress',
            request_id: `r${s.id + 1}`,
            protocol: 'shutdown',
            from: 'alice',
            to: 'lead',
          });
        await flush();
      }
      clock.advance(25_000); // past every maximum: whatever is left expires
      await flush();
      for (const [id, seen] of outcomes) {
        expect(seen, id).toHaveLength(1);
        expect(
          settledEvents.filter((r) => r.id === id),
          id,
        ).toHaveLength(1);
      }
      expect(lead.stats().pending).toBe(0);
      clock.advance(1_000); // past retention: audit records go too
      expect(lead.stats()).toMatchObject({ pending: 0, settled: 0 });
      expect(clock.pendingTimers()).toBe(0);
    },
  );
});
