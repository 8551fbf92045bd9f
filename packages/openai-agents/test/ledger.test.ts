import { createLedger, verifyLedger } from '@parley/ledger';
import { describe, expect, it } from 'vitest';
import { call, promptedRun, ScriptedModel, say, sharedWorld } from './helpers.js';

describe('a ledger given to the bridge’s confirm gate', () => {
  it('receives the approval’s request, prompt, answer, decision and authorization, and the chain verifies', async () => {
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
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 5 });
    await host.bridge.close();
  });
});
