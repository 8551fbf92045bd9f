import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createManualClock, createSequentialIds } from '@parley/core';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, soak } from './config.js';

// The soak: a long run of correlated requests with every kind of bad reply mixed in. Every request
// settles exactly once, and when the run is over nothing is left: no pending entry, no audit record
// past its retention, no timer on the fake clock, no abort listener, no real timer, and the heap
// is back near where it started (measured after a full GC).

const REQUESTS = soak(200_000, 5_000_000);
const BATCH = 2_000;
const TIMEOUT_MS = 10_000;
const RETAIN_MS = 1_000;
/** Allowed heap growth over the baseline once everything has settled and been swept. */
const HEAP_SLACK_BYTES = 8 * 1024 * 1024;

/** A full garbage collection: `--expose-gc` turned on at run time and `gc` taken from a fresh context. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** What happens to request number i: 10% each of the awkward fates, the rest answered. */
type Fate = 'approve' | 'reject' | 'timeout' | 'late' | 'duplicate' | 'abort' | 'cancel' | 'wrong';
function fateOf(i: number): Fate {
  // A fixed permutation of 0..99 spreads the fates over every batch without randomness.
  const bucket = (i * 37) % 100;
  if (bucket < 10) return 'timeout';
  if (bucket < 20) return 'late'; // times out, then a reply arrives
  if (bucket < 30) return 'duplicate'; // approved, then a second reply
  if (bucket < 35) return 'abort';
  if (bucket < 40) return 'cancel';
  if (bucket < 50) return 'wrong'; // a reply from the wrong sender first, then the right one
  return bucket < 75 ? 'approve' : 'reject';
}

function response(id: string, approve: boolean, from = 'alice'): CorrelateMessage {
  return { kind: 'response', request_id: id, protocol: 'shutdown', from, to: 'lead', response: { approve } };
}

const realTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('the correlator under a long soak', () => {
  it(
    `${cite('SOAK-01')} settles ${REQUESTS.toLocaleString('en')} requests exactly once and leaves nothing behind`,
    async () => {
      const gc = collector();
      const timersBefore = realTimers();
      gc();
      const baseline = process.memoryUsage().heapUsed;

      const clock = createManualClock({ now: 0 });
      const lead = createCorrelator({
        self: 'lead',
        protocols: [shutdownProtocol],
        send: () => {},
        clock,
        generateId: createSequentialIds('r'),
        timeoutMs: TIMEOUT_MS,
        retainSettledMs: RETAIN_MS,
        maxPending: BATCH,
        maxSettled: BATCH, // a whole batch stays findable, so every late reply is named late
      });
      const settledTimes = new Uint8Array(REQUESTS);
      let settledEvents = 0;
      lead.on('settled', () => settledEvents++);
      const heard = { approved: 0, rejected: 0, timeout: 0, cancelled: 0, other: 0 };
      const expected = { approved: 0, rejected: 0, timeout: 0, cancelled: 0, other: 0 };
      const sent = { late: 0, duplicate: 0, unknown: 0, wrong: 0 };
      const sampled: AbortSignal[] = [];

      for (let start = 0; start < REQUESTS; start += BATCH) {
        const end = Math.min(start + BATCH, REQUESTS);
        const controllers = new Map<number, AbortController>();
        for (let i = start; i < end; i++) {
          const fate = fateOf(i);
          const controller = fate === 'abort' || i % 7 === 0 ? new AbortController() : undefined;
          if (controller !== undefined) {
            controllers.set(i, controller);
            if (i % 10_007 === 0) sampled.push(controller.signal);
          }
          lead
            .request(shutdownProtocol, {
              to: 'alice',
              payload: {},
              ...(controller === undefined ? {} : { signal: controller.signal }),
            })
            .then(
              (reply) => {
                settledTimes[i] = (settledTimes[i] as number) + 1;
                heard[reply.state]++;
              },
              (error: { code: string }) => {
                settledTimes[i] = (settledTimes[i] as number) + 1;
                if (error.code === 'timeout' || error.code === 'cancelled') heard[error.code]++;
                else heard.other++;
              },
            );
        }
        for (let i = start; i < end; i++) {
          const id = `r${i + 1}`;
          switch (fateOf(i)) {
            case 'approve':
              void lead.receive(response(id, true));
              expected.approved++;
              break;
            case 'reject':
              void lead.receive(response(id, false));
              expected.rejected++;
              break;
            case 'duplicate':
              void lead.receive(response(id, true));
              void lead.receive(response(id, false));
              sent.duplicate++;
              expected.approved++;
              break;
            case 'wrong':
              void lead.receive(response(id, true, 'mallory'));
              void lead.receive(response(id, false));
              sent.wrong++;
              expected.rejected++;
              break;
            case 'abort':
              controllers.get(i)?.abort();
              expected.cancelled++;
              break;
            case 'cancel':
              void lead.cancel(id);
              expected.cancelled++;
              break;
            default:
              expected.timeout++;
          }
          if (i % 10 === 0) {
            void lead.receive(response(`zz${i}`, true)); // nobody asked this
            sent.unknown++;
          }
        }
        clock.advance(TIMEOUT_MS); // the unanswered ones expire
        for (let i = start; i < end; i++) {
          if (fateOf(i) === 'late') {
            void lead.receive(response(`r${i + 1}`, true));
            sent.late++;
          }
        }
        await Promise.resolve();
        expect(lead.stats().pending).toBe(0);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      clock.advance(RETAIN_MS); // past retention: the audit records go too

      // Exactly once, each.
      let notOnce = 0;
      for (let i = 0; i < REQUESTS; i++) if (settledTimes[i] !== 1) notOnce++;
      expect(notOnce).toBe(0);
      expect(settledEvents).toBe(REQUESTS);
      expect(heard).toEqual(expected);
      // Every bad reply was refused and counted, none settled anything.
      expect(lead.stats()).toEqual({
        pending: 0,
        incoming: 0,
        settled: 0,
        refused: {
          late: sent.late,
          duplicate: sent.duplicate,
          unknown_request: sent.unknown,
          wrong_sender: sent.wrong,
        },
      });
      // Nothing left behind: no fake timer, no abort listener, no real timer.
      expect(clock.pendingTimers()).toBe(0);
      expect(sampled.length).toBeGreaterThan(0);
      for (const signal of sampled) expect(getEventListeners(signal, 'abort')).toEqual([]);
      expect(realTimers()).toBeLessThanOrEqual(timersBefore);
      // The heap is back near its baseline while the correlator is still alive.
      gc();
      const growth = process.memoryUsage().heapUsed - baseline;
      expect(growth).toBeLessThan(HEAP_SLACK_BYTES);
      lead.close();
    },
    FULL ? 1_800_000 : 120_000,
  );
});
