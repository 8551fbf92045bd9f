// A prompt the chat platform refused to send: the model is told the confirmation failed
// (`confirmation_failed`), never that the person did not confirm, and nothing runs.
import { describe, expect, it } from 'vitest';
import { call, ScriptedModel, say, sharedWorld, startProcess, toolOutputsSeen, WHERE } from './helpers.js';

describe('a prompt that could not be sent', () => {
  it('rejects the call as confirmation_failed, not as not confirmed, and the tool does not run', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([[call('c1', 'drop_table', { table: 'orders' })], [say('Not dropped.')]]);
    const host = await startProcess(world, model);
    host.channel.failSends(1); // the chat platform refuses the prompt
    const outcome = await host.bridge.run({ runId: 'r1', input: 'Drop orders', ...WHERE });
    expect(outcome.status).toBe('completed');
    expect(world.dropped).toEqual([]);
    const seen = JSON.stringify(toolOutputsSeen(model));
    expect(seen).toContain('confirmation_failed');
    expect(seen).not.toContain('did not confirm');
    await host.bridge.close();
  });
});
