// Runs the code of guides/restate.md on a real restate-server from node_modules.
import { describe, expect, it } from 'vitest';
import { dropped, main } from '../guides/code/restate.js';

describe('guides/restate.md', () => {
  it('asks in the chat, decides by the requester’s 确认, and drops the table once', async () => {
    const { result, reply, sent } = await main();
    expect(reply).toMatchObject({ consumed: true, verdict: { kind: 'settle', outcome: 'confirmed' } });
    expect(result).toBe('dropped');
    expect(dropped).toEqual(['orders']);
    expect(sent).toEqual(['prompt', 'decided']);
  }, 60_000);
});
