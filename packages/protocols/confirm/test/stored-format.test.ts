import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createConfirmGate, digestAction } from '../src/index.js';
import { ACTION, setup, storedData } from './helpers.js';

// The stored format (2): each record is a kernel record (`parley.confirm.pending`, `.decision`,
// `.allow`) around plain JSON. Records of format 1 (the bare JSON of earlier releases) or of
// another format version are refused as `record_version`: reported, never acted on, never
// overwritten.

const DIGEST = await digestAction(ACTION);
/** A pending record as format 1 stored it. */
const FORMAT_ONE_PENDING = {
  v: 1,
  id: 'cfm_old',
  sessionKey: 'feishu:g1',
  action: { name: ACTION.name, args: ACTION.args, digest: DIGEST },
  summary: 's',
  requester: 'alice',
  approvers: 'requester',
  steps: null,
  step: 0,
  reprompts: 0,
  timeoutMs: 60_000,
  requestedAt: 1_000_000,
  firstPromptedAt: 1_000_000,
  promptedAt: 1_000_000,
  deliveredAt: 1_000_001,
  expiresAt: 1_060_001,
};

async function gateOn(
  store: ReturnType<typeof createMemoryStore>,
  clock: ReturnType<typeof createManualClock>,
) {
  const gate = createConfirmGate({ bus: createMessageBus({ clock }), clock, store });
  const errors: unknown[] = [];
  gate.on('error', ({ error }) => errors.push(error));
  await gate.ready;
  return { gate, errors };
}

describe('the stored format', () => {
  it('stores each confirmation as a kernel record of kind parley.confirm.pending, format 2', async () => {
    const h = await setup();
    const { id } = await h.ask();
    expect(await h.store.get(`confirm:pending:${id}`)).toMatchObject({
      kind: 'parley.confirm.pending',
      version: 2,
      data: { id, rev: 2, deliveredAt: expect.any(Number) },
    });
  });

  it('refuses a pending record of format 1 as record_version, and neither restores nor overwrites it', async () => {
    const clock = createManualClock({ now: 1_000_010 });
    const store = createMemoryStore({ clock });
    await store.set('confirm:pending:cfm_old', FORMAT_ONE_PENDING);
    const { gate, errors } = await gateOn(store, clock);
    expect(errors.some((error) => isParleyError(error, 'record_version'))).toBe(true);
    expect(gate.pending()).toEqual([]);
    expect(await store.get('confirm:pending:cfm_old')).toEqual(FORMAT_ONE_PENDING);
  });

  it('refuses a record of another format version as record_version', async () => {
    const clock = createManualClock({ now: 1_000_010 });
    const store = createMemoryStore({ clock });
    const future = {
      kind: 'parley.confirm.pending',
      version: 3,
      data: {},
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set('confirm:pending:cfm_new', future);
    const { gate, errors } = await gateOn(store, clock);
    expect(errors.some((error) => isParleyError(error, 'record_version'))).toBe(true);
    expect(gate.pending()).toEqual([]);
    expect(await store.get('confirm:pending:cfm_new')).toEqual(future);
  });

  it('never authorizes a decision of format 1, reporting it as record_version', async () => {
    const clock = createManualClock({ now: 1_000_010 });
    const store = createMemoryStore({ clock });
    const old = {
      ...FORMAT_ONE_PENDING,
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'alice',
      decidedAt: 1_000_002,
    };
    await store.set('confirm:decision:cfm_old', old);
    const { gate, errors } = await gateOn(store, clock);
    expect(await gate.authorize('cfm_old', ACTION)).toEqual({ ok: false, code: 'unknown_decision' });
    expect(errors.some((error) => isParleyError(error, 'record_version'))).toBe(true);
    expect(await store.get('confirm:decision:cfm_old')).toEqual(old);
  });

  it('marks a decision used in its record, once', async () => {
    const h = await setup();
    const { decision, id } = await h.ask();
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '确认');
    await decision;
    expect((await h.gate.authorize(id, ACTION)).ok).toBe(true);
    expect(await storedData(h.store, `confirm:decision:${id}`)).toMatchObject({ id, usedAt: h.clock.now() });
    expect(await h.gate.authorize(id, ACTION)).toEqual({ ok: false, code: 'already_used' });
  });

  it('rejects authorize with store_failed when the store cannot be read', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    const h = await setup({ store }, { clock, store });
    store.fail('getEntry');
    await expect(h.gate.authorize('cfm_1', ACTION)).rejects.toMatchObject({ code: 'store_failed' });
  });
});
