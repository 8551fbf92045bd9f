// The gates append to a ledger they are given (`ledger` option), with no glue: the chains they
// write verify, a crash or failing store never lets an effect run without its consent on record,
// and replicas or a redelivered fact never fork or duplicate an entry.
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore, createSequentialIds, type Store } from '@parley/core';
import { createFakeChannel, createFakePlatformOrder } from '@parley/testing';
import { createToolGate, defineTool } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLedger, type Ledger, verifyLedger } from '../src/index.js';
import { linesOf, until } from './helpers.js';

const SESSION = 'feishu:g1';
const DELETE = 'DELETE FROM orders WHERE status = 1';

/** A confirm gate and a tool gate sharing one ledger; the channel answers as alice when told. */
async function wired(store: Store, options: { ledgers?: [Ledger, Ledger] } = {}) {
  const clock = createManualClock({ now: 1_000_000 });
  const [forConfirm, forTools] = options.ledgers ?? [createLedger({ store, clock }), undefined];
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock, order: createFakePlatformOrder() });
  await bus.attach(channel);
  const confirm = createConfirmGate({
    bus,
    clock,
    store,
    ledger: forConfirm,
    generateId: createSequentialIds('cfm_'),
  });
  await confirm.ready;
  const statements: string[] = [];
  const dataModify = defineTool({
    name: 'data_modify',
    description: 'Runs one SQL statement',
    args: z.object({ sql: z.string() }),
    reasons: [],
    confirm: () => true,
    execute: (args) => {
      statements.push(args.sql);
      return { rows: 3 };
    },
  });
  const tools = createToolGate({
    tools: [dataModify],
    allowlist: ['data_modify'],
    confirm,
    ledger: forTools ?? forConfirm,
  });
  const run = async (reply: string) => {
    const shown = new Promise((resolve) => confirm.on('prompted', resolve));
    const result = tools.process([{ id: 'call_1', tool: 'data_modify', args: { sql: DELETE } }], {
      turn: 1,
      context: undefined,
      sessionKey: SESSION,
      requester: 'alice',
    });
    await shown;
    await channel.say('g1', 'alice', reply);
    return result;
  };
  return { clock, ledger: forConfirm, statements, run, confirm };
}

describe('gates given a ledger', () => {
  it('write a chain from request to effect that verifies, and a tampered copy fails', async () => {
    const { ledger, statements, run } = await wired(createMemoryStore());
    const result = await run('确认');
    expect(result.executed).toHaveLength(1);
    expect(statements).toEqual([DELETE]);
    const entries = await ledger.entries(SESSION);
    expect(entries.map((e) => e.body.kind)).toEqual([
      'request',
      'prompt_delivered',
      'answer',
      'decision',
      'authorization',
      'effect',
    ]);
    expect(entries[1]?.body).toMatchObject({ messageId: 'msg_1', platformStamp: { scope: 'feishu:g1' } });
    const lines = await linesOf(ledger, SESSION);
    expect(verifyLedger(lines)).toMatchObject({ ok: true, entries: 6 });
    const tampered = [...lines];
    tampered[5] = (tampered[5] as string).replace('"succeeded"', '"failed"');
    expect(verifyLedger(tampered)).toMatchObject({ ok: false, code: 'edited', seq: 5 });
  });

  it('record a cancelled confirmation without authorization or effect, and run nothing', async () => {
    const { ledger, statements, run } = await wired(createMemoryStore());
    await run('取消');
    expect(statements).toEqual([]);
    const kinds = async () => (await ledger.entries(SESSION)).map((e) => e.body.kind);
    await until('the cancelled decision in the chain', async () => (await kinds()).length === 4);
    expect(await kinds()).toEqual(['request', 'prompt_delivered', 'answer', 'decision']);
  });

  it('never run the effect when the store write of its authorization fails', async () => {
    const inner = createMemoryStore();
    let refused = 0;
    // every write of a chain holding an authorization fails: the store is down at that moment
    const store: Store = {
      ...inner,
      compareAndSet: async (key, expected, value, opts) => {
        if (JSON.stringify(value).includes('"authorization"')) {
          refused++;
          throw new Error('the store is down');
        }
        return inner.compareAndSet(key, expected, value, opts);
      },
    };
    const { ledger, statements, run } = await wired(store);
    const done = await run('确认');
    expect(refused).toBeGreaterThan(0);
    expect(done.executed).toEqual([]);
    expect(done.feedback.failed_calls[0]).toMatchObject({ code: 'confirmation_failed' });
    expect(statements).toEqual([]);
    const kinds = (await ledger.entries(SESSION)).map((e) => e.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision']);
    expect(verifyLedger(await linesOf(ledger, SESSION)).ok).toBe(true);
  });

  it('two replicas’ ledgers on one store record every shared fact once, in one chain', async () => {
    const store = createMemoryStore();
    const clock = createManualClock({ now: 1_000_000 });
    const a = createLedger({ store, clock, owner: 'replica-a' });
    const b = createLedger({ store, clock, owner: 'replica-b' });
    const { statements, run } = await wired(store, { ledgers: [a, b] });
    await run('确认');
    expect(statements).toEqual([DELETE]);
    const entries = await b.entries(SESSION);
    expect(entries.map((e) => e.body.kind)).toEqual([
      'request',
      'prompt_delivered',
      'answer',
      'decision',
      'authorization',
      'effect',
    ]);
    expect(verifyLedger(await linesOf(a, SESSION)).ok).toBe(true);
  });
});
