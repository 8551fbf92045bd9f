// The "Persisting and resuming" guide: a step flow kept in a Store between messages, a correlator
// that takes over its pending requests after a restart, and a confirmation gate that finishes an
// action confirmed after a restart. Each scenario returns what it logged.
import { createMessageBus, parseSessionKey } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import {
  type Clock,
  createManualClock,
  createMemoryStore,
  isParleyError,
  type JsonValue,
  type Store,
} from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
} from '@parley/correlate';
import { createFakeChannel, createFakePlatformOrder, type FakePlatformOrder } from '@parley/testing';

// #region flow
import { createFlowSession, defineFlow } from '@parley/fsm';
import { z } from 'zod';

export const refundFlow = defineFlow({
  id: 'refund',
  version: 1,
  steps: [
    {
      name: 'order',
      prompt: 'Which order? (o_123)',
      fields: z.object({ order: z.string().regex(/^o_\d+$/) }),
    },
    {
      name: 'amount',
      prompt: 'How much, in euros?',
      fields: z.object({ amount: z.number().positive().max(500) }),
    },
    {
      name: 'confirm',
      prompt: 'Type YES to refund.',
      fields: z.object({ confirm: z.literal('YES') }),
      onFailure: { action: 'back', to: 'amount', message: 'Not confirmed: how much, in euros?' },
    },
  ],
});

/** One answer of one chat's refund flow: load, submit, save. Safe on several replicas. */
export async function answerRefund(
  store: Store,
  clock: Clock,
  sessionKey: string,
  answer: unknown,
): Promise<{ saved: boolean; reply: string }> {
  const key = `flow:refund:${sessionKey}`;
  const entry = await store.getEntry(key);
  let session: ReturnType<typeof openRefund>;
  try {
    // restore checks the whole snapshot; a refused one creates nothing and sets no timer
    session = openRefund(clock, entry?.value);
  } catch (error) {
    if (!isParleyError(error)) throw error;
    await store.delete(key); // invalid_snapshot, wrong_machine, version_mismatch, invalid_fields…
    return { saved: false, reply: `Your refund could not be resumed (${error.code}); please start again.` };
  }
  const result = session.submit(answer);
  // Compare-and-set on the version read: if another replica answered meanwhile, nothing is lost.
  const write = await store.compareAndSet(key, entry?.version ?? null, session.snapshot(), {
    ttlMs: 86_400_000,
  });
  if (!write.ok) return { saved: false, reply: 'That answer crossed another one; please answer again.' };
  const reply = result.ok ? (session.prompt ?? 'Refund recorded.') : result.message;
  return { saved: true, reply };
}

function openRefund(clock: Clock, snapshot: JsonValue | undefined) {
  return createFlowSession(refundFlow, { clock, ...(snapshot !== undefined && { snapshot }) });
}
// #endregion flow

/** Answers a refund flow across a "restart" (a new session per message), then shows a refusal. */
export async function flowScenario(clock: Clock = createManualClock({ now: 1_000 })): Promise<string[]> {
  const store = createMemoryStore({ clock });
  const log: string[] = [];
  for (const answer of [
    { order: 'o_42' },
    { amount: 900 },
    { amount: 30 },
    { confirm: 'yes' },
    { amount: 25 },
  ]) {
    log.push((await answerRefund(store, clock, 'tg:7', answer)).reply);
  }
  // A tampered record that skips the amount step is refused, not half-loaded.
  const entry = await store.getEntry('flow:refund:tg:7');
  const stored = entry?.value as Record<string, unknown>;
  await store.set('flow:refund:tg:7', { ...stored, state: 'confirm', fields: { order: { order: 'o_42' } } });
  log.push((await answerRefund(store, clock, 'tg:7', { confirm: 'YES' })).reply);
  log.push(String(await store.get('flow:refund:tg:7')));
  return log;
}

// #region correlator
/** The lead asks a reviewer to approve a plan, restarts before the answer, and still acts on it. */
export async function correlatorScenario(
  clock: Clock = createManualClock({ now: 1_000 }),
): Promise<string[]> {
  const store = createMemoryStore({ clock }); // a Redis store in production
  const log: string[] = [];
  let handled: () => void = () => {};
  const planHandled = new Promise<void>((resolve) => {
    handled = resolve;
  });
  const toReviewer = (message: CorrelateMessage): void => void reviewer.receive(message);
  let lead = startLead({ store, clock, send: toReviewer, log, handled });
  const reviewer = createCorrelator({
    self: 'reviewer',
    clock,
    protocols: [planApprovalProtocol],
    send: (message) => void lead.receive(message), // whichever lead instance is running now
  });
  const asked = new Promise<string>((resolve) =>
    reviewer.on('request', ({ request }) => resolve(request.id)),
  );

  const reply = lead.request(planApprovalProtocol, {
    to: 'reviewer',
    payload: { plan: 'Drop the legacy tables' },
    waitingOnHuman: true, // the reviewer asks a person: the human deadline (30 min) applies
  });
  reply.catch((error: unknown) =>
    log.push(`first instance: ${isParleyError(error) ? error.code : 'failed'}`),
  );
  const id = await asked; // written to the store first, then sent
  lead.close(); // the process stops; the record stays pending in the store

  lead = startLead({ store, clock, send: toReviewer, log, handled }); // handlers first, then restore
  log.push(`restored ${await lead.restore()} pending request(s)`);
  reviewer.respond(id, { approve: true, reason: 'backups checked' });
  await planHandled;
  log.push(`state: ${lead.get(id)?.state}`);
  lead.close();
  reviewer.close();
  return log;
}

function startLead(options: {
  store: Store;
  clock: Clock;
  send: (message: CorrelateMessage) => void;
  log: string[];
  handled: () => void;
}): Correlator {
  const { store, clock, send, log, handled } = options;
  const lead = createCorrelator({ self: 'lead', clock, store, send, protocols: [planApprovalProtocol] });
  // A promise does not survive a restart; a handler registered by protocol does.
  lead.handle(planApprovalProtocol, (request) => {
    log.push(
      request.state === 'approved' ? `run the plan (${request.response?.reason})` : `plan ${request.state}`,
    );
    handled();
  });
  return lead;
}
// #endregion correlator

// #region confirm
/** A confirmation prompted before a restart and answered after it runs through a resume handler. */
export async function confirmScenario(clock: Clock = createManualClock({ now: 1_000 })): Promise<string[]> {
  const store = createMemoryStore({ clock }); // a Redis store in production
  const log: string[] = [];
  const action = { name: 'orders.delete_cancelled', args: { status: 'cancelled' } };
  // One platform outlives the restart: it keeps numbering the chat's messages (Telegram's message_id).
  const platform = createFakePlatformOrder();

  // Before: the prompt goes out, then the process stops.
  const before = await startGate(store, clock, platform, {});
  // `prompted` fires once the prompt's send resolved and that was written to the store: from then
  // on a restarted gate can take the reply (a record whose delivery was never written is settled
  // `aborted` / `prompt_failed` instead, since nobody can tell whether a reply answers it).
  const delivered = new Promise((resolve) => before.gate.on('prompted', resolve));
  void before.gate.request({
    sessionKey: 'tg:ops',
    requester: 'alice',
    action,
    summary: 'Delete cancelled orders',
  });
  await delivered;
  await before.stop(); // local waiters settle as aborted/closed; the store keeps the confirmation

  // After: a new gate on the same store, with a resume handler per action name.
  let resumed: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resumed = resolve;
  });
  const after = await startGate(store, clock, platform, {
    'orders.delete_cancelled': async (decision, gate) => {
      const auth = await gate.authorize(decision, decision.action); // same checks as before the restart
      const text = auth.ok ? 'Deleted the cancelled orders.' : `Nothing deleted (${decision.outcome}).`;
      log.push(`resumed ${decision.id}: ${decision.outcome} by ${decision.decidedBy}`);
      await after.bus.publishOutbound({ ...parseSessionKey(decision.sessionKey), text });
      resumed();
    },
  });
  log.push(
    `pending after restart: ${after.gate.pending().map((p) => `${p.actionName} restored=${p.restored}`)}`,
  );
  await after.channel.say('ops', 'alice', '确认');
  await done;
  log.push(`bot: ${(await after.channel.waitForSent('Deleted')).text}`);
  await after.stop();
  return log;
}

async function startGate(
  store: Store,
  clock: Clock,
  platform: FakePlatformOrder,
  resume: Parameters<typeof createConfirmGate>[0]['resume'],
) {
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'tg', clock, order: platform }); // your platform's adapter
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, store, clock, ...(resume && { resume }) });
  await gate.ready; // confirmations persisted before the restart are loaded
  return {
    bus,
    channel,
    gate,
    async stop() {
      await gate.close();
      await bus.close();
    },
  };
}
// #endregion confirm
