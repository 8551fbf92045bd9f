import { describe, expect, it } from 'vitest';
import { runAiSdkConfirm } from '../src/run.js';

describe('runAiSdkConfirm (the three scripted scenarios)', () => {
  const lines: string[] = [];
  const run = runAiSdkConfirm((line) => lines.push(line));

  it('runs the confirmed call once, also when the same history is sent again', async () => {
    const [confirmed] = await run;
    expect(confirmed?.name).toBe('confirmed');
    expect(confirmed?.dropped).toEqual(['orders']);
    expect(lines).toContain('decision: confirmed; approved: true');
  });

  it('does not run the call when 确认 comes after the deadline, and tells the model why', async () => {
    const late = (await run)[1];
    expect(late?.dropped).toEqual([]);
    expect(late?.seen).toEqual([
      { type: 'execution-denied', reason: 'Nobody confirmed in time (timed_out); the tool did not run.' },
    ]);
  });

  it('returns invalid arguments to the model as tool_feedback without asking anyone', async () => {
    const refused = (await run)[2];
    expect(refused?.dropped).toEqual([]);
    expect(refused?.seen).toMatchObject([
      {
        type: 'json',
        value: { tool_feedback: { failed_calls: [{ code: 'invalid_args', tool: 'dropTable' }] } },
      },
    ]);
    expect(lines).toContain('prompts sent to the chat: 0');
  });

  it('leaves no timer behind', async () => {
    expect((await run).map((r) => r.pendingTimers)).toEqual([0, 0, 0]);
  });
});
