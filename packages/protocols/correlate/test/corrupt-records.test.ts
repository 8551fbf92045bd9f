import { createManualClock, createMemoryStore, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCorrelator, planApprovalProtocol } from '../src/index.js';
import { recordEvents, reply, storedPlanRequest, asStoredRecord, storedRequestAt } from './helpers.js';

const base = storedPlanRequest() as Record<string, JsonValue>;

/** A `lead` on a store holding the request `record` under request id `other`. */
function leadWith(record: JsonValue) {
  return leadOver(asStoredRecord(record));
}

/** A `lead` on a store holding `stored` (as it is) at the key of request `other`. */
async function leadOver(stored: JsonValue) {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  await store.set('correlate:lead:other', stored);
  const lead = createCorrelator({
    self: 'lead',
    protocols: [planApprovalProtocol],
    send: () => {},
    clock,
    store,
  });
  return { store, lead };
}

describe('stored request records read strictly', () => {
  it.each([
    ['an id other than its key', { id: 'someone_else' }],
    ['a requester other than this correlator', { from: 'mallory' }],
    ['a deadline past its maximum', { deadlineAt: 10_000 }],
    ['a deadline before it was created', { createdAt: 6_000 }],
    ['a final state without settledAt', { state: 'approved' }],
    ['a pending state with settledAt', { settledAt: 2_000 }],
    ['a timeout that is not a positive integer', { timeoutMs: -5 }],
  ])(
    '[SETTLE-16] refuses a record with %s: not restored, a reply to it unknown, and reported',
    async (_, patch) => {
      const { store, lead } = await leadWith({ ...base, ...patch } as JsonValue);
      const events = recordEvents(lead);
      expect(await lead.restore()).toBe(0);
      expect(lead.get('other')).toBeUndefined();
      expect(await lead.receive(reply('other', { approve: true }, 'bob', 'plan_approval'))).toMatchObject({
        ok: false,
        code: 'unknown_request',
      });
      await expect(lead.waitFor('other')).rejects.toMatchObject({ code: 'unknown_request' });
      expect(events.error.map((e) => [e.code, e.requestId])).toContainEqual(['store_failed', 'other']);
      expect(await storedRequestAt(store, 'correlate:lead:other')).toMatchObject(patch); // left for a person to look at
      lead.close();
    },
  );

  it('[SETTLE-16] still restores the well-formed record those cases were made from', async () => {
    const { lead } = await leadWith(base);
    expect(await lead.restore()).toBe(1);
    lead.close();
  });
});

describe('stored request records of another format', () => {
  it.each([
    ['a request of the format before the kernel (no envelope)', { ...base } as JsonValue],
    [
      'a request record of another format version',
      { kind: 'parley.correlate.request', version: 2, data: base, lease: null, fence: 0, deadlineAt: null },
    ],
    [
      'a record of another kind',
      { kind: 'parley.peers.conversation', version: 1, data: base, lease: null, fence: 0, deadlineAt: null },
    ],
  ])(
    'refuses %s: not restored, a reply to it unknown, reported, and never overwritten',
    async (_, stored) => {
      const { store, lead } = await leadOver(stored as JsonValue);
      const events = recordEvents(lead);
      expect(await lead.restore()).toBe(0);
      expect(await lead.receive(reply('other', { approve: true }, 'bob', 'plan_approval'))).toMatchObject({
        ok: false,
        code: 'unknown_request',
      });
      expect(events.error.map((e) => [e.code, e.requestId])).toContainEqual(['store_failed', 'other']);
      expect(await store.get('correlate:lead:other')).toEqual(stored);
      lead.close();
    },
  );
});
