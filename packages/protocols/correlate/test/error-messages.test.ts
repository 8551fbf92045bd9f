import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CorrelateError, createCorrelator, defineProtocol, shutdownProtocol } from '../src/index.js';
import { createLead, createTeam, errorOf, faultyStore, flush, rejectionOf, reply } from './helpers.js';

// Codes are what a host branches on; messages are what a person reads in a log. Each message names
// the request, party or option it is about, so these pin the text of every error and refusal.

const messageOf = (error: unknown): string => (error as CorrelateError).message;
const rejection = async (promise: Promise<unknown>): Promise<string> => messageOf(await rejectionOf(promise));
const thrown = (run: () => unknown): string => messageOf(errorOf(run));

/** A memory store on `clock` whose reads fail. */
function unreadableStore(clock: ManualClock): Store {
  const { store, faults } = faultyStore(createMemoryStore({ clock }));
  faults.failReads = true;
  return store;
}

describe('the messages of configuration errors', () => {
  it('names the option and the value refused', () => {
    expect(thrown(() => createLead({ maxPending: 0 }))).toBe('maxPending must be an integer ≥ 1, got 0');
    expect(thrown(() => createLead({ self: '' }))).toBe('A correlator needs a non-empty "self"');
    const twin = defineProtocol('shutdown', { request: z.object({}), response: z.object({}) });
    expect(thrown(() => createLead({ protocols: [shutdownProtocol, twin] }))).toBe(
      'Two protocols are named "shutdown"',
    );
  });

  it('says what a protocol lacks', () => {
    const schema = z.object({});
    expect(thrown(() => defineProtocol('', { request: schema, response: schema }))).toBe(
      'A protocol needs a non-empty name',
    );
    const notASchema = {} as typeof schema;
    expect(thrown(() => defineProtocol('deploy', { request: notASchema, response: schema }))).toBe(
      'Protocol "deploy" needs Standard Schemas for request and response',
    );
  });
});

describe('the messages of refused requests', () => {
  it('names the protocol, the limit, the id and the schema', async () => {
    const other = defineProtocol('other', { request: z.object({}), response: z.object({}) });
    const lead = createLead({ maxPending: 1 });
    expect(await rejection(lead.request(other, { to: 'alice', payload: {} }))).toBe(
      'Protocol "other" is not registered with this correlator',
    );
    expect(await rejection(lead.request(shutdownProtocol, { to: '', payload: {} }))).toBe(
      'A request needs a non-empty "to"',
    );
    expect(
      await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 3 } as never })),
    ).toBe('The payload does not match the shutdown request schema');
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    expect(await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toBe(
      'Correlator "lead" already has 1 pending requests',
    );
    lead.close();
    expect(await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toBe(
      'Correlator "lead" is closed',
    );
  });

  it('names an id the custom generator repeated', async () => {
    const lead = createLead({ generateId: () => 'same' });
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    expect(await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toBe(
      'generateId returned "same", an id already in use',
    );
    lead.close();
  });
});

describe('the messages a requester rejects with', () => {
  it('says who did not answer which request by its deadline', async () => {
    const { lead, clock } = createTeam();
    const pending = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waited = lead.waitFor('req_1');
    clock.advance(30_000);
    expect(await rejection(pending)).toBe(
      'No reply from "alice" to shutdown request "req_1" by its deadline',
    );
    expect(await rejection(waited)).toBe('No reply from "alice" to shutdown request "req_1" by its deadline');
  });

  it('names the cancelled request, and says when there is none yet', async () => {
    const { lead } = createTeam();
    const pending = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waited = lead.waitFor('req_1');
    await lead.cancel('req_1', 'changed my mind');
    expect(await rejection(pending)).toBe('The request "req_1" was cancelled');
    expect(await rejection(waited)).toBe('The request "req_1" was cancelled');
    const aborted = AbortSignal.abort();
    expect(
      await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: aborted })),
    ).toBe('The request was cancelled');
  });

  it('names an id it does not know, and one the store could not read', async () => {
    const lead = createLead();
    expect(await rejection(lead.waitFor('ghost'))).toBe('No request "ghost" here');
    const clock = createManualClock({ now: 1_000 });
    const durable = createLead({ clock, store: unreadableStore(clock) });
    expect(await rejection(durable.waitFor('ghost'))).toBe(
      'Request "ghost" could not be read from the store',
    );
  });
});

describe('the messages of refused replies', () => {
  it('names the id, the party asked and the protocol expected', async () => {
    const { lead } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    const refusal = async (message: unknown) => {
      const result = await lead.receive(message);
      return result.ok ? undefined : result.message;
    };
    expect(await refusal(reply('nope', { approve: true }))).toBe('No request "nope"');
    expect(await refusal(reply('req_1', { approve: true }, 'mallory'))).toBe(
      'Request "req_1" was sent to "alice", not "mallory"',
    );
    expect(await refusal(reply('req_1', { approve: true }, 'alice', 'plan_approval'))).toBe(
      'Request "req_1" is a shutdown request, not plan_approval',
    );
    expect(await refusal(reply('req_1', { approve: 'yes' }))).toBe(
      'The response to "req_1" does not match the shutdown schema; the request stays pending',
    );
    expect(await refusal({ ...reply('req_1', { approve: true }), to: 'bob' })).toBe(
      'The message is for "bob", not "lead"',
    );
    lead.close();
    expect(await refusal(reply('req_1', { approve: true }))).toBe('Correlator "lead" is closed');
  });

  it('quotes what a throwing decide() said', async () => {
    const picky = defineProtocol('picky', {
      request: z.object({}),
      response: z.object({}),
      decide: () => {
        throw new Error('no idea');
      },
    });
    const lead = createLead({ protocols: [picky], generateId: () => 'p1' });
    void lead.request(picky, { to: 'alice', payload: {} }).catch(() => {});
    const result = await lead.receive(reply('p1', {}, 'alice', 'picky'));
    expect(result.ok === false && result.message).toBe('decide() of picky threw: Error: no idea');
    lead.close();
  });

  it('says the store could not be read for an id it does not hold', async () => {
    const clock = createManualClock({ now: 1_000 });
    const lead = createLead({ clock, store: unreadableStore(clock) });
    const result = await lead.receive(reply('elsewhere', { approve: true }));
    expect(result.ok === false && result.message).toBe('The store could not be read');
    lead.close();
  });

  it('quotes what broke when a message cannot be handled at all', async () => {
    const lead = createLead();
    lead.on('error', () => {});
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    const result = await lead.receive(hostile);
    expect(result).toMatchObject({ ok: false, code: 'malformed' });
    expect(result.ok === false && result.message).toBe('The message could not be handled: Error: trap');
  });
});

describe('the messages of the responder side', () => {
  it('names the request that cannot be answered and why', async () => {
    const { lead, alice, deliver } = createTeam();
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await deliver();
    expect(thrown(() => alice.respond('req_1', { approve: 'yes' } as never))).toBe(
      'The response does not match the shutdown response schema',
    );
    expect(thrown(() => alice.respond('nope', { approve: true }))).toBe('No incoming request "nope"');
    alice.respond('req_1', { approve: true });
    expect(thrown(() => alice.respond('req_1', { approve: true }))).toBe(
      'Request "req_1" is already approved',
    );
    alice.close();
    expect(thrown(() => alice.respond('req_1', { approve: true }))).toBe('Correlator "alice" is closed');
    lead.close();
  });

  it('names the party a response could not be sent to', async () => {
    let fail = false;
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      clock: createManualClock({ now: 1_000 }),
      send: () => {
        if (fail) throw new Error('socket closed');
      },
    });
    const request = {
      kind: 'request',
      request_id: 'q1',
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      payload: {},
      deadline_at: 60_000,
    };
    expect(await alice.receive(request)).toMatchObject({ ok: true });
    fail = true;
    alice.on('error', () => {});
    expect(thrown(() => alice.respond('q1', { approve: true }))).toBe(
      'Sending the response to "lead" failed',
    );
    alice.close();
  });
});

describe('the default decision of a protocol', () => {
  it('rejects a response that is not an object, such as null, as no verdict', () => {
    const nullable = defineProtocol('nullable', { request: z.object({}), response: z.null() });
    expect(nullable.decide(null)).toEqual({ approve: false, reason: 'no_verdict' });
  });
});

describe('a request whose first write to the store fails', () => {
  it('names the request, frees its place under maxPending, and says when the id was taken', async () => {
    const clock = createManualClock({ now: 1_000 });
    const { store, faults } = faultyStore(createMemoryStore({ clock }));
    faults.failWrites = true;
    const errors: unknown[] = [];
    const ids = ['r1', 'r2', 'r2'];
    const lead = createLead({ clock, store, maxPending: 1, generateId: () => ids.shift() ?? 'r9' });
    lead.on('error', (e) => errors.push(e.error));
    expect(await rejection(lead.request(shutdownProtocol, { to: 'alice', payload: {} }))).toBe(
      'Request "r1" could not be written to the store',
    );
    expect(lead.stats().pending).toBe(0);

    faults.failWrites = false;
    const first = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    expect(await lead.receive(reply('r2', { approve: true }))).toMatchObject({ ok: true });
    await expect(first).resolves.toMatchObject({ requestId: 'r2', approved: true });
    expect(lead.stats().pending).toBe(0);

    // Another instance already wrote r2: the key exists, so this request is refused, not merged.
    const other = createLead({ clock, store, generateId: () => 'r2' });
    expect(await rejectionOf(other.request(shutdownProtocol, { to: 'alice', payload: {} }))).toMatchObject({
      code: 'store_failed',
      message: 'Request "r2" could not be written to the store',
      cause: new Error('The key "correlate:lead:r2" already exists'),
    });
    expect(other.stats().pending).toBe(0);
    lead.close();
    other.close();
    expect(errors.map((e) => (e as Error).message)).toEqual(['down']);
  });

  it('stops watching the store on close', () => {
    const clock = createManualClock({ now: 1_000 });
    const memory = createMemoryStore({ clock });
    let watching = 0;
    const watch = memory.watch?.bind(memory);
    const store: Store = {
      ...memory,
      watch(prefix, listener, options) {
        const stop = watch?.(prefix, listener, options);
        watching++;
        return () => {
          watching--;
          stop?.();
        };
      },
    };
    const lead = createLead({ clock, store });
    expect(watching).toBe(1);
    lead.close();
    expect(watching).toBe(0);
  });
});
