// `--platform discord`: the same scripted mornings with #approvals and #errors on Discord (the
// stand-in of @parley/chat-sdk/testing, through @parley/chat-sdk over the real Chat SDK and its
// Discord adapter). The approval is a confirm card that @-mentions the chairman; his click, or his
// typed 确认 / 取消, decides it. Escalations go to #approvals with the mention, errors to #errors.
import { createManualClock } from '@parley/core';
import { settledFetch } from '@parley/chat-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHAIRMAN, DISCORD_CHANNELS } from '../src/discord.js';
import { DEMO_START, type RunOptions, runQuantPipeline } from '../src/run.js';
import { findScenario, type Scenario } from '../src/scenarios.js';

// The Discord adapter calls the global fetch; this one leaves no abort listener for the leak check.
const realFetch = globalThis.fetch;
beforeEach(() => {
  globalThis.fetch = settledFetch(realFetch);
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

async function onDiscord(scenario: string | Scenario, options: Omit<RunOptions, 'scenario' | 'clock'> = {}) {
  const clock = createManualClock({ now: DEMO_START });
  const result = await runQuantPipeline({ scenario, clock, platform: 'discord', ...options });
  return { result, clock, text: result.transcript.join('\n'), posted: result.discord ?? [] };
}

const buttons = (message: { components?: readonly { components: readonly { label: string }[] }[] }) =>
  (message.components ?? []).flatMap((row) => row.components.map((button) => button.label));

describe('quant-pipeline on Discord', () => {
  it('asks in #approvals with an @ of the chairman, and his click on 确认 approves', async () => {
    const { result, clock, text, posted } = await onDiscord('happy');
    expect(result.status).toBe('approved');
    expect(result.steps['approve']?.output).toMatchObject({ approved: true, by: 'chairman' });
    const [prompt, ...rest] = posted;
    expect(prompt?.channel).toBe('#approvals');
    expect(prompt?.message.channel_id).toBe(DISCORD_CHANNELS['#approvals']);
    expect(JSON.stringify(prompt?.message)).toContain(
      `<@${CHAIRMAN.id}> approve strategy (quant-pipeline-2026-04-10/approve): long`,
    );
    expect(buttons(prompt?.message ?? {})).toEqual(['确认 Confirm', '取消 Cancel']);
    expect(rest.every((m) => m.channel === '#approvals')).toBe(true); // the gate's own follow-up only
    expect(text).toContain(
      '08:17:00  chairman in #approvals: approve — "clicked 确认 in Discord #approvals"',
    );
    expect(clock.now()).toBeGreaterThan(DEMO_START);
  });

  it('takes a typed 确认 from the chairman as his approval', async () => {
    const { result, text } = await onDiscord('happy', { answerBy: 'text' });
    expect(result.status).toBe('approved');
    expect(text).toContain('chairman in #approvals: approve — "typed 确认 in Discord #approvals"');
  });

  it('rejects on his click on 取消', async () => {
    const happy = findScenario('happy') as Scenario;
    const { result, text } = await onDiscord({ ...happy, chairman: { afterMs: 5 * 60_000, approve: false } });
    expect(result.status).toBe('rejected');
    expect(text).toContain('chairman in #approvals: reject — "clicked 取消 in Discord #approvals"');
  });

  it('posts a blocked review and a revise limit to #approvals with the @, and asks nothing', async () => {
    for (const [name, why] of [
      ['blocked', 'review of Strategy_Thesis.json: blocked'],
      ['revise-limit', 'review of Strategy_Thesis.json: still "revise" after 3 rounds'],
    ] as const) {
      const { result, posted } = await onDiscord(name);
      expect(result.status).toBe('escalated');
      expect(posted.map((p) => [p.channel, p.message.content])).toEqual([
        ['#approvals', `<@${CHAIRMAN.id}> ${why}`],
      ]);
    }
  });

  it('posts the halted run to #errors', async () => {
    const { result, posted } = await onDiscord('errors');
    expect(result.status).toBe('failed');
    expect(posted).toHaveLength(1);
    expect(posted[0]?.channel).toBe('#errors');
    expect(posted[0]?.message.content).toMatch(/^pipeline halted at data_analysis: /);
  });
});
