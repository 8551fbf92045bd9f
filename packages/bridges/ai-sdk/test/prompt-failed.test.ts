// A prompt the chat platform refused to send: the model is told the confirmation failed
// (`confirmation_failed`), never that the person declined, and nothing runs.
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { DROP_ASK, proposeDrop, sharedWorld, startProcess, toolOutputsSeen } from './helpers.js';

describe('a prompt that could not be sent', () => {
  it('answers the approval as denied because the confirmation failed, not declined', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const { model, tools, first } = await proposeDrop(host, 'Not dropped.');
    host.channel.failSends(1); // the chat platform refuses the prompt
    const answer = await host.bridge.approve(first, { sessionKey: 'tg:g1', requester: 'alice' });
    expect(answer.approved).toBe(false);
    expect(answer.decisions).toMatchObject([{ outcome: 'aborted', reason: 'prompt_failed' }]);
    await generateText({ model, tools, messages: [...DROP_ASK, ...answer.messages] });
    const [output] = toolOutputsSeen(model) as { type: string; reason: string }[];
    expect(output?.type).toBe('execution-denied');
    expect(output?.reason).toContain('confirmation_failed');
    expect(output?.reason).not.toMatch(/declined|did not confirm/);
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });

  it('reports confirmation_failed in the tool feedback of the loop gate', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const gate = host.bridge.loopGate(() => ({
      turn: 1,
      context: { readOnly: false },
      sessionKey: 'tg:g1',
      requester: 'alice',
    }));
    host.channel.failSends(1);
    const result = await gate([{ id: 'c1', tool: 'dropTable', args: { table: 'orders' } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    expect(result.feedback.failed_calls).toMatchObject([{ code: 'confirmation_failed', status: 'error' }]);
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });
});
