import { createMessageBus } from '@parley/bus';
import { type ConfirmDecision, type ConfirmGate, createConfirmGate } from '@parley/confirm';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  canonicalJson,
  type JsonValue,
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  isParleyError,
  type Store,
} from '@parley/core';
import {
  createFakeChannel,
  createFakePlatformOrder,
  createFakeStore,
  type FakeChannel,
} from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  type ConfirmationRecorder,
  createLedger,
  type Ledger,
  recordConfirmations,
  verifyLedger,
} from '../src/index.js';
import { linesOf, until } from './helpers.js';

const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };
const SESSION = 'feishu:g1';

const clock = createManualClock({ now: 1_000_000 });

async function setup(
  store?: Store,
): Promise<{ gate: ConfirmGate; channel: FakeChannel; ledger: Ledger; store: Store }> {
  const kept = store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock, order: createFakePlatformOrder() });
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, clock, store: kept, generateId: createSequentialIds('cfm_') });
  await gate.ready;
  return { gate, channel, ledger: createLedger({ store: kept, clock }), store: kept };
}

/** Waits for the gate's next `prompted` event. */
function prompted(gate: ConfirmGate): Promise<void> {
  return new Promise((resolve) => {
    const off = gate.on('prompted', () => {
      off();
      resolve();
    });
  });
}

/** Asks through the recorder, waits for the prompt's delivery, then answers as alice. */
async function answered(
  gate: ConfirmGate,
  channel: FakeChannel,
  recorder: ConfirmationRecorder,
  reply: string,
  summary: string,
): Promise<ConfirmDecision> {
  const shown = prompted(gate);
  const pending = recorder.request({ sessionKey: SESSION, requester: 'alice', action: ACTION, summary });
  await shown;
  await channel.say('g1', 'alice', reply);
  return pending;
}

describe('recordConfirmations', () => {
  it('records a card click as the answer, and a timeout as a decision with no answer, from the gate events alone', async () => {
    const { gate, channel, ledger } = await setup();
    const recorder = recordConfirmations(gate, ledger);
    let shown = prompted(gate);
    const clicked = recorder.request({
      sessionKey: SESSION,
      requester: 'alice',
      action: ACTION,
      summary: 'x',
    });
    await shown;
    const button = channel.lastSent('g1')?.card?.buttons[0]?.value as { confirmation: string };
    await channel.click('g1', 'alice', button);
    await clicked;
    const kinds = async (): Promise<string[]> => (await ledger.entries(SESSION)).map((e) => e.body.kind);
    await until('the clicked decision in the chain', async () => (await kinds()).length === 4);
    expect((await ledger.entries(SESSION))[2]?.body).toMatchObject({
      kind: 'answer',
      via: 'card',
      authorId: 'alice',
    });
    shown = prompted(gate);
    const silent = recorder.request({
      sessionKey: SESSION,
      requester: 'alice',
      action: ACTION,
      summary: 'y',
    });
    await shown;
    clock.advance(300_000);
    expect((await silent).outcome).toBe('timed_out');
    await until('the timed-out decision in the chain', async () => (await kinds()).length === 7);
    expect((await kinds()).slice(4)).toEqual(['request', 'prompt_delivered', 'decision']);
    recorder.stop();
  });

  it("records a confirmation's request, delivered prompt, answer, decision, authorization and effect, in order", async () => {
    const { gate, channel, ledger } = await setup();
    const recorder = recordConfirmations(gate, ledger, { generateId: createSequentialIds('req_') });
    const pending = answered(gate, channel, recorder, '确认', ACTION.args.sql);
    const decision = await pending;
    const ran = await recorder.run(decision, ACTION, () => 'deleted 3 rows');
    expect(ran).toEqual({ ok: true, value: 'deleted 3 rows', recorded: true });
    const entries = await ledger.entries(SESSION);
    expect(entries.map((e) => e.body.kind)).toEqual([
      'request',
      'prompt_delivered',
      'answer',
      'decision',
      'authorization',
      'effect',
    ]);
    expect(entries[0]?.body).toMatchObject({
      ref: 'req_1',
      actionDigest: decision.action.digest,
      approvers: 'requester',
    });
    // The delivered prompt: digests of the exact text and card shown, and the platform's stamp.
    const prompt = channel.sent.find((message) => message.chatId === 'g1' && message.card !== undefined);
    expect(entries[1]?.body).toMatchObject({
      textDigest: bytesToHex(sha256(utf8ToBytes(prompt?.text ?? ''))),
      cardDigest: bytesToHex(sha256(utf8ToBytes(canonicalJson(prompt?.card as unknown as JsonValue)))),
      platformStamp: { scope: expect.any(String), position: expect.any(Array) },
    });
    expect(entries[2]?.body).toMatchObject({ authorId: 'alice', via: 'reply', text: '确认' });
    expect(entries[3]?.body).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: 'alice' });
    expect(verifyLedger(await linesOf(ledger, SESSION))).toMatchObject({ ok: true, entries: 6 });
    recorder.stop();
  });

  it('runs nothing for a cancelled decision and records why', async () => {
    const { gate, channel, ledger } = await setup();
    const recorder = recordConfirmations(gate, ledger);
    const pending = answered(gate, channel, recorder, '取消', 'delete');
    let ran = false;
    const result = await recorder.run(await pending, ACTION, () => {
      ran = true;
    });
    expect(result).toMatchObject({ ok: false, code: 'not_confirmed' });
    expect(ran).toBe(false);
    expect((await ledger.entries(SESSION)).map((e) => e.body.kind)).toEqual([
      'request',
      'prompt_delivered',
      'answer',
      'decision',
    ]);
  });

  it('records a failed effect and rethrows its error', async () => {
    const { gate, channel, ledger } = await setup();
    const recorder = recordConfirmations(gate, ledger);
    const pending = answered(gate, channel, recorder, '确认', 'delete');
    const decision = await pending;
    await expect(recorder.run(decision, ACTION, () => Promise.reject(new Error('db down')))).rejects.toThrow(
      'db down',
    );
    expect((await ledger.entries(SESSION)).at(-1)?.body).toMatchObject({ kind: 'effect', outcome: 'failed' });
  });

  it('fails closed: a request that cannot be recorded is never prompted; an effect whose authorization cannot be recorded never runs', async () => {
    const store = createFakeStore({ clock });
    const { gate, channel, ledger } = await setup(store);
    const refused: string[] = [];
    const recorder = recordConfirmations(gate, createLedger({ store, clock, maxEntries: 4 }), {
      onRefused: (r) => refused.push(r.code),
    });
    store.fail('compareAndSet', { times: 32 });
    await expect(
      recorder.request({ sessionKey: SESSION, requester: 'alice', action: ACTION, summary: 'x' }),
    ).rejects.toSatisfy((e) => isParleyError(e, 'store_failed'));
    expect(channel.sent).toEqual([]);
    store.heal();
    const pending = answered(gate, channel, recorder, '确认', 'x');
    let ran = false;
    // request, prompt, answer, decision fill the chain (maxEntries 4): the authorization cannot be recorded
    const result = await recorder.run(await pending, ACTION, () => {
      ran = true;
    });
    expect(result).toMatchObject({ ok: false, code: 'chain_full' });
    expect(ran).toBe(false);
    expect(refused).toContain('chain_full');
    expect((await ledger.entries(SESSION)).map((e) => e.body.kind)).not.toContain('effect');
  });

  it('does not authorize when the decision itself cannot be recorded, and reports an effect outcome it could not record', async () => {
    const { gate, channel, ledger, store } = await setup();
    const tiny = createLedger({ store, maxEntries: 5, keyPrefix: 'tiny:' });
    const recorder = recordConfirmations(gate, tiny);
    const pending = answered(gate, channel, recorder, '确认', 'x');
    const decision = await pending;
    expect(await recorder.run(decision, ACTION, () => 'ran')).toEqual({
      ok: true,
      value: 'ran',
      recorded: false,
    });
    expect(await gate.authorize(decision, ACTION)).toEqual({ ok: false, code: 'already_used' });
    const none = recordConfirmations(gate, createLedger({ store, maxEntries: 1, keyPrefix: 'none:' }));
    expect(await none.run(decision, ACTION, () => 'never')).toMatchObject({ ok: false, code: 'chain_full' });
    expect(await ledger.entries(SESSION)).toEqual([]);
  });
});

describe('recordConfirmations under failure', () => {
  it('reports a ledger that rejects while recording gate events as store_failed, never as an unhandled rejection', async () => {
    const { gate, channel, ledger } = await setup();
    const refused: string[] = [];
    let reject = false;
    const flaky: Ledger = {
      ...ledger,
      append: (session, input) =>
        reject ? Promise.reject(new Error('ledger down')) : ledger.append(session, input),
    };
    gate.on('prompted', () => {
      reject = true; // the request is recorded; from its delivered prompt on, the ledger rejects
    });
    const recorder = recordConfirmations(gate, flaky, {
      onRefused: (r) => refused.push(`${r.code}: ${r.message}`),
    });
    const pending = answered(gate, channel, recorder, '确认', 'x');
    await pending;
    await until('both event appends reported', async () => refused.length === 2);
    expect(refused).toEqual(['store_failed: ledger down', 'store_failed: ledger down']);
  });

  it('a crash between any two ledger writes never lets an effect run without its authorization recorded', async () => {
    for (let writes = 0; writes <= 6; writes++) {
      const { gate, channel } = await setup();
      const inner = createMemoryStore({ clock });
      let left = writes;
      const dying: Store = {
        ...inner,
        compareAndSet: async (...args) => {
          if (left-- <= 0) throw new Error('process died');
          return inner.compareAndSet(...args);
        },
      };
      const recorder = recordConfirmations(gate, createLedger({ store: dying, clock }));
      let ran = false;
      try {
        const shown = prompted(gate);
        const pending = recorder.request({
          sessionKey: SESSION,
          requester: 'alice',
          action: ACTION,
          summary: 'x',
        });
        await Promise.race([shown, pending]); // a request that cannot be recorded is never prompted
        await channel.say('g1', 'alice', '确认');
        await recorder.run(await pending, ACTION, () => {
          ran = true;
        });
      } catch (error) {
        expect(isParleyError(error, 'store_failed')).toBe(true); // the request itself could not be recorded
      }
      const kinds = (await createLedger({ store: inner, clock }).entries(SESSION)).map((e) => e.body.kind);
      expect(ran).toBe(kinds.includes('authorization'));
      if (kinds.includes('effect'))
        expect(kinds.indexOf('authorization')).toBeLessThan(kinds.indexOf('effect'));
      if (kinds.includes('authorization'))
        expect(kinds.indexOf('decision')).toBeLessThan(kinds.indexOf('authorization'));
      await gate.close();
    }
  });
});
