import { createLedger, verifyLedger } from '@parley/ledger';
import type { ModelRequest, ModelResponse } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { call, promptedRun, ScriptedModel, say, sharedWorld } from './helpers.js';

describe('a ledger given to the bridge’s confirm gate', () => {
  it('receives the approval’s request, prompt, answer, decision, authorization and the tool’s effect, and the chain verifies', async () => {
    const world = sharedWorld();
    const ledger = createLedger({ store: world.store, clock: world.clock });
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Dropped orders.')],
    ]);
    const { host, running } = await promptedRun(world, model, { ledger });
    await host.channel.say('g1', 'alice', '确认');
    expect((await running).status).toBe('completed');
    expect(world.dropped).toEqual(['orders']);
    const kinds = (await ledger.entries('tg:g1')).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization', 'effect']);
    const entries = await ledger.entries('tg:g1');
    const authorized = entries[4]?.body as { confirmationId?: string };
    expect(entries[5]?.body).toMatchObject({
      kind: 'effect',
      confirmationId: authorized.confirmationId,
      outcome: 'succeeded',
    });
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 6 });
    await host.bridge.close();
  });

  it('records the effect as unknown when the resumed run fails without reporting the tool’s output', async () => {
    const world = sharedWorld();
    const ledger = createLedger({ store: world.store, clock: world.clock });
    // the model answers the first turn only: the resumed run throws after the approval
    const model = new ScriptedModel([[call('call_1', 'drop_table', { table: 'orders' })]]);
    const { host, running } = await promptedRun(world, model, { ledger });
    await host.channel.say('g1', 'alice', '确认');
    await running.catch(() => undefined);
    const last = (await ledger.entries('tg:g1')).at(-1)?.body;
    expect(last).toMatchObject({ kind: 'effect', outcome: 'unknown' });
    expect((last as { detail?: string }).detail).toContain('the run failed');
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 6 });
    await host.bridge.close();
  });

  it('appends no effect for a call the person cancelled', async () => {
    const world = sharedWorld();
    const ledger = createLedger({ store: world.store, clock: world.clock });
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Not dropped.')],
    ]);
    const { host, running } = await promptedRun(world, model, { ledger });
    await host.channel.say('g1', 'alice', '取消');
    await running;
    expect(world.dropped).toEqual([]);
    const kinds = (await ledger.entries('tg:g1')).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision']);
    await host.bridge.close();
  });

  it('names what the run threw even when it is not an Error, and records nothing without a ledger', async () => {
    /** Answers the first turn, then fails as a provider SDK may: with a bare string. */
    class FlakyModel extends ScriptedModel {
      override async getResponse(request: ModelRequest): Promise<ModelResponse> {
        if (this.requests.length > 0) throw 'provider offline';
        return super.getResponse(request);
      }
    }
    const world = sharedWorld();
    const ledger = createLedger({ store: world.store, clock: world.clock });
    const model = new FlakyModel([[call('call_1', 'drop_table', { table: 'orders' })]]);
    const { host, running } = await promptedRun(world, model, { ledger });
    await host.channel.say('g1', 'alice', '确认');
    await expect(running).rejects.toBe('provider offline');
    expect((await ledger.entries('tg:g1')).at(-1)?.body).toMatchObject({
      kind: 'effect',
      outcome: 'unknown',
      detail: 'the run failed: provider offline',
    });
    await host.bridge.close();

    const bare = sharedWorld();
    const again = await promptedRun(
      bare,
      new FlakyModel([[call('call_1', 'drop_table', { table: 'orders' })]]),
    );
    await again.host.channel.say('g1', 'alice', '确认');
    await expect(again.running).rejects.toBe('provider offline');
    expect(bare.dropped).toEqual(['orders']); // the tool ran; with no ledger nothing else is written
    await again.host.bridge.close();
  });
});
