import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  shutdownProtocol,
} from '@parley/correlate';
import { type Clock, type StandardSchemaV1, type TimerHandle, validate } from '@parley/core';
import { do_not_optimize } from 'mitata';
import { nanoid } from 'nanoid';
import { suite } from '../lib.js';

const payload = { reason: 'work is done' };
const TIMEOUT_MS = 30_000;

/**
 * The system clock with every timer unref'd: the memory suite leaves 100 000 requests pending for
 * an hour, and they must not keep the process alive after the measurement. The time suites use the
 * default clock, as users do.
 */
const unrefClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return timer as unknown as TimerHandle; // only ever given back to clearTimeout below
  },
  clearTimeout: (handle) => clearTimeout(handle as unknown as ReturnType<typeof setTimeout>),
};

/**
 * A lead and a teammate correlator over an in-process transport: every request is checked against
 * its schema, tracked through the request machine, answered by the teammate (response checked too)
 * and settled. `deferred` queues messages until `flush()` so many requests are in flight at once.
 */
function parleyPair(deferred: boolean): { lead: Correlator; flush: () => void } {
  const queue: CorrelateMessage[] = [];
  let lead: Correlator;
  let alice: Correlator;
  const deliver = (m: CorrelateMessage): void => {
    void (m.to === 'lead' ? lead : alice).receive(m);
  };
  const send = deferred ? (m: CorrelateMessage) => void queue.push(m) : deliver;
  lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send });
  alice = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send });
  alice.on('request', ({ request }) => alice.respond(request.id, { approve: true }));
  const flush = (): void => {
    // The iterator also visits the replies queued while it runs; shift() would make this O(n²).
    for (const m of queue) deliver(m);
    queue.length = 0;
  };
  return { lead, flush };
}

interface BareEntry {
  resolve: (value: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
}

interface BareMessage {
  readonly kind: 'request' | 'response';
  readonly request_id: string;
  readonly from: string;
  readonly to: string;
  readonly body: unknown;
}

/**
 * What a host writes without Parley: a Map of id → resolver, nanoid ids, one timer per request, and
 * the same in-process hop as the Parley pair (request and response are message objects handed to
 * `send`; `deferred` queues them until `flush()`). No schema checks, no tracker, no audit log.
 *
 * With `checked`, it also does the four schema checks a Parley round trip does (request before
 * sending and on arrival, response before sending and on arrival, with the same zod schemas) and
 * reads the clock four times (sent, received, answered, settled). It is not a goal: it shows how
 * much of the distance to the bare baseline is that work alone. Each of the four checks is where a
 * value enters a correlator (from the host that sends, from the peer that receives, twice), and
 * none is of a value the same correlator built and checked: the two correlators of the pair trust
 * nothing of each other, as two processes would not. So Parley keeps all four, and so does this.
 */
function barePair(
  deferred: boolean,
  checked = false,
): { request: () => Promise<unknown>; flush: () => void } {
  const pending = new Map<string, BareEntry>();
  const queue: BareMessage[] = [];
  // Absent for the plain baseline, whose path then has only an undefined check per hop.
  const checkpoint = checked
    ? (schema: StandardSchemaV1, value: unknown): void => {
        if (!validate(schema, value).ok) throw new Error('invalid');
        do_not_optimize(Date.now()); // kept, as a record would keep it
      }
    : undefined;
  const deliver = (m: BareMessage): void => {
    if (m.kind === 'request') {
      checkpoint?.(shutdownProtocol.request, m.body);
      const body = { approve: true };
      checkpoint?.(shutdownProtocol.response, body);
      send({ kind: 'response', request_id: m.request_id, from: m.to, to: m.from, body });
      return;
    }
    checkpoint?.(shutdownProtocol.response, m.body);
    const entry = pending.get(m.request_id);
    if (entry === undefined) return;
    pending.delete(m.request_id);
    clearTimeout(entry.timer);
    entry.resolve(m.body);
  };
  const send = deferred ? (m: BareMessage) => void queue.push(m) : deliver;
  const request = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nanoid();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('timeout'));
      }, TIMEOUT_MS);
      pending.set(id, { resolve, timer });
      checkpoint?.(shutdownProtocol.request, payload);
      send({ kind: 'request', request_id: id, from: 'lead', to: 'alice', body: payload });
    });
  const flush = (): void => {
    // The iterator also visits the replies queued while it runs; shift() would make this O(n²).
    for (const m of queue) deliver(m);
    queue.length = 0;
  };
  return { request, flush };
}

async function mcpPair(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'teammate', version: '1.0.0' }, { capabilities: {} });
  const client = new Client({ name: 'lead', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/**
 * The goal of both round-trip suites (issue 36's goal table: ≥ 10× faster than the MCP SDK), and
 * three reference comparisons (no threshold) for reading it. 'vs bare Map+nanoid+timer' is a
 * reference, not a goal: the bare case checks nothing and keeps no record, so the distance to it
 * is mostly the work of the guarantees (see 'bare + checks and clock reads'), and issue 36 sets no
 * goal against it. The `slowerByAtMost: 1.5` it carried came from an older issue.
 */
const roundTripGoals = [
  { case: 'parley correlate', vs: 'MCP SDK in-memory', fasterBy: 10 },
  { case: 'parley correlate', vs: 'bare Map+nanoid+timer' },
  { case: 'bare + checks and clock reads', vs: 'bare Map+nanoid+timer' },
  { case: 'parley correlate', vs: 'bare + checks and clock reads' },
];

suite('correlate: sequential round trips', {
  cases: {
    'parley correlate': () => {
      const { lead } = parleyPair(false);
      return () => lead.request(shutdownProtocol, { to: 'alice', payload });
    },
    'bare Map+nanoid+timer': () => {
      const bare = barePair(false);
      return () => bare.request();
    },
    'bare + checks and clock reads': () => {
      const bare = barePair(false, true);
      return () => bare.request();
    },
    'MCP SDK in-memory': async () => {
      const client = await mcpPair();
      return () => client.ping();
    },
  },
  goals: roundTripGoals,
});

/** One operation of the in-flight suite: 100 requests, then delivery of what they queued, then all replies. */
function hundredInFlight(request: () => Promise<unknown>, flush: () => void): () => Promise<unknown> {
  return () => {
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) all.push(request());
    flush();
    return Promise.all(all);
  };
}

suite('correlate: 100 round trips in flight', {
  cases: {
    'parley correlate': () => {
      const { lead, flush } = parleyPair(true);
      return hundredInFlight(() => lead.request(shutdownProtocol, { to: 'alice', payload }), flush);
    },
    'bare Map+nanoid+timer': () => {
      const bare = barePair(true);
      return hundredInFlight(bare.request, bare.flush);
    },
    'bare + checks and clock reads': () => {
      const bare = barePair(true, true);
      return hundredInFlight(bare.request, bare.flush);
    },
    'MCP SDK in-memory': async () => {
      const client = await mcpPair();
      return hundredInFlight(
        () => client.ping(),
        () => {},
      ); // its transport delivers by itself
    },
  },
  goals: roundTripGoals,
});

let shared: Correlator | undefined;
const barePending = new Map<string, BareEntry>();

suite('correlate: retained heap per pending request (100k pending)', {
  kind: 'memory',
  instances: 100_000,
  cases: {
    'parley correlate': () => {
      shared ??= createCorrelator({
        self: 'lead',
        protocols: [shutdownProtocol],
        send: () => {},
        clock: unrefClock,
        maxPending: 1_000_000,
        timeoutMs: 3_600_000,
      });
      return shared.request(shutdownProtocol, { to: 'alice', payload });
    },
    'bare Map+nanoid+timer': () =>
      new Promise((resolve, reject) => {
        const id = nanoid();
        const timer = setTimeout(() => {
          barePending.delete(id);
          reject(new Error('timeout'));
        }, 3_600_000);
        timer.unref();
        barePending.set(id, { resolve, timer });
      }),
  },
  goals: [{ case: 'parley correlate', vs: 'bare Map+nanoid+timer', maxBytes: 600 }],
});
