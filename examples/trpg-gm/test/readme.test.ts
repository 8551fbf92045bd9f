import { readFileSync } from 'node:fs';
import { createManualClock } from '@parley/core';
import { toMermaid } from '@parley/fsm';
import { describe, expect, it } from 'vitest';
import { turnPhase } from '../src/phase.js';
import { runTrpgSession } from '../src/run.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('draws the turn phase machine exactly as toMermaid does', () => {
    const blocks = [...readme.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((match) => match[1]?.trim());
    expect(blocks).toContain(toMermaid(turnPhase).trim());
  });

  it('quotes the transcript as the scripted run prints it', async () => {
    const excerpt = /An excerpt[^`]*```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const quoted = excerpt.split('\n').filter((line) => line !== '' && line !== '...');
    expect(quoted.length).toBeGreaterThan(10);
    const run = await runTrpgSession({ clock: createManualClock({ now: Date.UTC(2026, 0, 14, 19) }) });
    for (const line of quoted) expect(run.transcript).toContain(line);
  });
});
