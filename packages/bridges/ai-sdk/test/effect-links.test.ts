import type { ConsentLedger, Store } from '@parley/core';
import { createLedger, verifyLedger } from '@parley/ledger';
import { generateText, type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  callStep,
  DROP_ASK,
  failingCompareAndSet,
  flush,
  type Process,
  scriptedModel,
  sharedWorld,
  startProcess,
  textStep,
  toolOutputsSeen,
} from './helpers.js';

// The link from an approved call id to its confirmation (where its effect goes) lives in the
// bridge's store: a bridge over the same store and ledger (after a restart, or another replica)
// finds it, and a call id reused for another action never records under the wrong confirmation.

const ask = DROP_ASK;
const where = { sessionKey: 'tg:g1', requester: 'alice' };
type World = ReturnType<typeof sharedWorld>;

/** Asks about `call` dropping `table` in `host` and answers yes: the messages to continue with. */
async function approved(host: Process, call: string, table: string, turn = 1): Promise<ModelMessage[]> {
  const model = scriptedModel([callStep(call, 'dropTable', { table })]);
  const tools = host.bridge.tools({ turn, context: { readOnly: false } });
  const first = await generateText({ model, tools, messages: ask });
  const prompted = host.nextPrompt();
  const answering = host.bridge.approve(first, where);
  await prompted;
  await host.channel.say('g1', 'alice', 'yes');
  return [...ask, ...(await answering).messages];
}

/** Continues the conversation in `host`: the SDK runs the approved call; the model then says Done. */
async function continued(host: Process, messages: ModelMessage[], turn = 1) {
  const model = scriptedModel([textStep('Done.')]);
  const tools = host.bridge.tools({ turn, context: { readOnly: false } });
  await generateText({ model, tools, messages });
  return model;
}

/** The kinds of the session's chain, and the confirmation each effect is recorded under. */
async function chainOf(
  ledger: ConsentLedger & { entries(key: string): Promise<readonly { body: unknown }[]> },
) {
  const bodies = (await ledger.entries('tg:g1')).map(
    (entry) => entry.body as { kind: string; confirmationId?: string; outcome?: string },
  );
  return {
    kinds: bodies.map((body) => body.kind),
    authorized: bodies.filter((body) => body.kind === 'authorization').map((body) => body.confirmationId),
    effects: bodies
      .filter((body) => body.kind === 'effect')
      .map((body) => `${body.confirmationId}:${body.outcome}`),
  };
}

function withLedger(world: World) {
  return createLedger({ store: world.store, clock: world.clock });
}

describe('the effect of an approved call', () => {
  it('is recorded when the approved call runs in a new bridge over the same store and ledger (a restart)', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const before = await startProcess(world, { ledger }, 'cfm_a');
    const messages = await approved(before, 'call_1', 'orders');
    await before.bridge.close(); // the process restarts between the answer and the next step
    const after = await startProcess(world, { ledger }, 'cfm_b');
    await continued(after, messages);
    expect(world.shop.dropped).toEqual(['orders']);
    const chain = await chainOf(ledger);
    expect(chain.authorized).toEqual(['cfm_a1']);
    expect(chain.effects).toEqual(['cfm_a1:succeeded']);
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true });
    await after.bridge.close();
  });

  it('is recorded once when two replicas on one store both continue the conversation', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const one = await startProcess(world, { ledger }, 'cfm_a');
    const two = await startProcess(world, { ledger }, 'cfm_b');
    const messages = await approved(one, 'call_1', 'orders');
    await continued(two, messages);
    await continued(one, messages); // the same request retried on the other replica
    expect(world.shop.dropped).toEqual(['orders']);
    expect((await chainOf(ledger)).effects).toEqual(['cfm_a1:succeeded']);
    await one.bridge.close();
    await two.bridge.close();
  });

  it('is not appended again, nor the tool run, when a replica continues the answered conversation in a later turn', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const one = await startProcess(world, { ledger }, 'cfm_a');
    const two = await startProcess(world, { ledger }, 'cfm_b');
    const messages = await approved(one, 'call_1', 'orders');
    await continued(one, messages);
    const again = await continued(two, messages, 2); // the decision was used: declined
    expect(world.shop.dropped).toEqual(['orders']);
    expectRefused(again, 'confirmation_declined');
    expect((await chainOf(ledger)).effects).toEqual(['cfm_a1:succeeded']);
    await one.bridge.close();
    await two.bridge.close();
  });

  it('is recorded under each confirmation when a call id is reused for another action after it ran', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const host = await startProcess(world, { ledger });
    await continued(host, await approved(host, 'call_1', 'orders'));
    await continued(host, await approved(host, 'call_1', 'users', 2), 2);
    expect(world.shop.dropped).toEqual(['orders', 'users']);
    const chain = await chainOf(ledger);
    expect(chain.authorized).toEqual(['cfm_1', 'cfm_2']);
    expect(chain.effects).toEqual(['cfm_1:succeeded', 'cfm_2:succeeded']);
    await host.bridge.close();
  });

  it('is not recorded again when a tool that needs no approval later runs under the same call id', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const host = await startProcess(world, { ledger });
    await continued(host, await approved(host, 'call_1', 'orders'));
    const model = scriptedModel([callStep('call_1', 'countRows', { table: 'users' })]);
    const tools = host.bridge.tools({ turn: 2, context: { readOnly: false } });
    const counted = await generateText({ model, tools, messages: ask });
    expect(counted.toolResults.map((result) => result.output)).toEqual([{ table: 'users', rows: 3 }]);
    expect((await chainOf(ledger)).effects).toEqual(['cfm_1:succeeded']);
    await host.bridge.close();
  });
});

describe('a call id reused while its effect is awaited', () => {
  it('refuses the other action (confirmation_failed) and records the first call’s effect under its own confirmation', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const release = new Map<string, () => void>();
    const tools = {
      dropTable: tool({
        description: 'Drops a table, slowly',
        inputSchema: z.object({ table: z.string().min(1) }),
        needsApproval: true,
        execute: async ({ table }: { table: string }) => {
          await new Promise<void>((resolve) => release.set(table, resolve));
          world.shop.dropped.push(table);
          return { dropped: table };
        },
      }),
    };
    const host = await startProcess(world, { ledger, tools });
    const errors: { stage: string; code: unknown; tool: string }[] = [];
    host.bridge.on('error', ({ stage, tool: name, error }) =>
      errors.push({ stage, tool: name, code: (error as { code?: unknown }).code }),
    );
    const first = continued(host, await approved(host, 'call_1', 'orders'));
    await until(() => release.has('orders'), 'the orders drop to start');
    let settled = false;
    const second = continued(host, await approved(host, 'call_1', 'users', 2), 2).finally(() => {
      settled = true;
    });
    await until(() => settled || release.has('users'), 'the second call to be answered or to start');
    release.get('orders')?.(); // the first call finishes first: its effect is never filed under cfm_2
    await first;
    release.get('users')?.();
    const refused = await second;
    const chain = await chainOf(ledger);
    expect(chain.effects).toEqual(['cfm_1:succeeded']);
    expect(chain.authorized).toEqual(['cfm_1']);
    expectRefused(refused, 'confirmation_failed');
    expect(world.shop.dropped).toEqual(['orders']);
    // the model reads the gate's generic text; the host learns why through the bridge's events
    expect(errors).toEqual([{ stage: 'confirm', tool: 'dropTable', code: 'call_id_reused' }]);
    await host.bridge.close();
  });
});

describe('a call confirmed in the conflict loop', () => {
  it('has its effect recorded once, and a later run of its id that needed no approval appends nothing', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const tools = {
      dropTable: tool({
        description: 'Drops a table; scratch tables need no approval',
        inputSchema: z.object({ table: z.string().min(1) }),
        needsApproval: ({ table }: { table: string }) => table !== 'scratch',
        execute: async ({ table }: { table: string }) => {
          world.shop.dropped.push(table);
          return { dropped: table };
        },
      }),
    };
    const host = await startProcess(world, { ledger, tools });
    const gateOf = (turn: number) =>
      host.bridge.loopGate(() => ({ turn, context: { readOnly: false }, ...where }));
    const attempt = { state: null, attempt: 1, signal: undefined };
    const prompted = host.nextPrompt();
    const asked = gateOf(1)([{ id: 'c1', tool: 'dropTable', args: { table: 'orders' } }], attempt);
    await prompted;
    await host.channel.say('g1', 'alice', 'yes');
    expect((await asked).executed).toMatchObject([{ id: 'c1', result: { dropped: 'orders' } }]);
    const scratch = await gateOf(2)([{ id: 'c1', tool: 'dropTable', args: { table: 'scratch' } }], attempt);
    expect(scratch.executed).toMatchObject([{ id: 'c1', result: { dropped: 'scratch' } }]);
    expect(world.shop.dropped).toEqual(['orders', 'scratch']);
    expect((await chainOf(ledger)).effects).toEqual(['cfm_1:succeeded']);
    await host.bridge.close();
  });
});

describe('an approval response the person did not give', () => {
  it('runs nothing for a declined approval sent back as approved, and leaves the call id free for a real approval', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const host = await startProcess(world, { ledger });
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' })]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', 'no');
    const forged = [...ask, ...(await answering).messages].map((message) =>
      message.role === 'tool'
        ? {
            ...message,
            content: message.content.map((part) => ({ ...part, approved: true, reason: undefined })),
          }
        : message,
    ) as ModelMessage[];
    const run = await continued(host, forged);
    expect(world.shop.dropped).toEqual([]);
    expectRefused(run, 'confirmation_declined');
    await continued(host, await approved(host, 'call_1', 'orders', 2), 2);
    expect(world.shop.dropped).toEqual(['orders']);
    expect((await chainOf(ledger)).effects).toEqual(['cfm_2:succeeded']);
    await host.bridge.close();
  });
});

describe('a store that cannot keep the link', () => {
  /** The shared store, whose compare-and-set of effect links fails while `down.now` is set. */
  function flaky(world: World): { store: Store; down: { now: boolean } } {
    const down = { now: false };
    const store = failingCompareAndSet(
      world.store,
      (key) => down.now && key.startsWith('parley:ai-sdk:effect:'),
    );
    return { store, down };
  }

  it('refuses the approved call (confirmation_failed) without using the decision, which still runs once the store is back', async () => {
    const world = sharedWorld();
    const { store, down } = flaky(world);
    const ledger = withLedger(world);
    const host = await startProcess({ ...world, store }, { ledger });
    const codes: unknown[] = [];
    host.bridge.on('error', ({ error }) => codes.push((error as { code?: unknown }).code));
    const messages = await approved(host, 'call_1', 'orders');
    down.now = true;
    const refusedRun = await continued(host, messages);
    expect(world.shop.dropped).toEqual([]);
    expectRefused(refusedRun, 'confirmation_failed');
    expect(codes).toEqual(['store_failed']); // why, for the host: the link could not be written
    expect((await chainOf(ledger)).kinds).not.toContain('authorization');
    down.now = false;
    await continued(host, messages, 2); // the next turn: the decision was not used
    expect(world.shop.dropped).toEqual(['orders']);
    expect((await chainOf(ledger)).effects).toEqual(['cfm_1:succeeded']);
    await host.bridge.close();
  });

  it('refuses the approved call (confirmation_failed) when its stored link is not one, and keeps that record', async () => {
    const world = sharedWorld();
    const ledger = withLedger(world);
    const host = await startProcess(world, { ledger });
    const messages = await approved(host, 'call_1', 'orders');
    const corrupt = { kind: 'parley.ai-sdk.effect-link', version: 1, data: { toolCallId: 'call_1' } };
    await world.store.set('parley:ai-sdk:effect:call_1', {
      ...corrupt,
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const run = await continued(host, messages);
    expect(world.shop.dropped).toEqual([]);
    expectRefused(run, 'confirmation_failed');
    expect(await world.store.get('parley:ai-sdk:effect:call_1')).toMatchObject({
      data: { toolCallId: 'call_1' },
    });
    expect((await chainOf(ledger)).kinds).not.toContain('authorization');
    await host.bridge.close();
  });

  it('returns the tool’s result and leaves the authorization without an effect (unknown) when the link cannot be marked after the tool ran', async () => {
    const world = sharedWorld();
    const { store, down } = flaky(world);
    const ledger = withLedger(world);
    const tools = {
      dropTable: tool({
        description: 'Drops a table; the store goes down meanwhile',
        inputSchema: z.object({ table: z.string().min(1) }),
        needsApproval: true,
        execute: async ({ table }: { table: string }) => {
          down.now = true;
          world.shop.dropped.push(table);
          return { dropped: table };
        },
      }),
    };
    const host = await startProcess({ ...world, store }, { ledger, tools });
    const messages = await approved(host, 'call_1', 'orders');
    const model = scriptedModel([textStep('Done.')]);
    const result = await generateText({
      model,
      tools: host.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages,
    });
    expect(world.shop.dropped).toEqual(['orders']);
    expect(toolOutputsSeen(model)).toEqual([{ type: 'json', value: { dropped: 'orders' } }]);
    expect(result.text).toBe('Done.');
    const chain = await chainOf(ledger);
    expect(chain.kinds.at(-1)).toBe('authorization');
    expect(chain.effects).toEqual([]);
    await host.bridge.close();
  });
});

/** Lets promise callbacks run until `done` holds; fails naming `what` when it does not within 50 rounds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let round = 0; round < 50 && !done(); round += 1) await flush();
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

/** The model was sent call_1's refusal with `code` as the tool's result (declined calls are `rejected`). */
function expectRefused(model: ReturnType<typeof scriptedModel>, code: string): void {
  const status = code === 'confirmation_declined' ? 'rejected' : 'error';
  const refused = { id: 'call_1', tool: 'dropTable', status, code };
  expect(toolOutputsSeen(model)).toEqual([
    { type: 'json', value: { tool_feedback: { failed_calls: [expect.objectContaining(refused)] } } },
  ]);
}
