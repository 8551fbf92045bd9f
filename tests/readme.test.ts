// The README's "In 15 lines" example: its code block must be tests/readme/example.ts (from the
// first import down), which runs here as a whole program; and the replies the text after it says
// never confirm are checked with the same gate.
import { readFileSync } from 'node:fs';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate, parseReply } from '@parley/confirm';
import { createFakeChannel } from '@parley/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');
const VALIDATE = readFileSync(new URL('./readme/validate.ts', import.meta.url), 'utf8');

function readmeBlock(heading: string): string {
  const section = README.slice(README.indexOf(`\n${heading}\n`));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`No ts block under "${heading}"`);
  return match[1];
}

describe('README: In 15 lines', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('shows exactly the code of tests/readme/example.ts', () => {
    expect(readmeBlock('## In 15 lines')).toBe(EXAMPLE.slice(EXAMPLE.indexOf('\nimport ') + 1));
  });

  it('keeps the code block within 15 lines of statements (imports and blank lines aside)', () => {
    const statements = readmeBlock('## In 15 lines')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('import ') && !line.startsWith('//'));
    expect(statements.length).toBeLessThanOrEqual(15);
  });

  it('runs and prints what its last comment says: confirmed true', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./readme/example.js');
    expect(log.mock.calls).toEqual([['confirmed', true]]);
  });

  it('never confirms on the replies the README names, nor on another user’s 确认', async () => {
    expect(['确认吗？', 'yes?'].map((text) => parseReply(text))).toEqual(['unrecognised', 'unrecognised']);
    const chat = createFakeChannel({ channel: 'tg' });
    const bus = createMessageBus();
    await bus.attach(chat);
    const gate = createConfirmGate({ bus });
    const action = { name: 'drop_table', args: { table: 'orders' } };
    const ask = gate.request({
      sessionKey: 'tg:ops',
      requester: 'alice',
      action,
      summary: 'DROP TABLE orders',
    });
    await chat.waitForSent('DROP TABLE orders');
    await chat.say('ops', 'bob', '确认'); // not the requester: not counted
    await chat.say('ops', 'alice', '确认吗？'); // unclear: cancels
    const decision = await ask;
    expect(decision.outcome).toBe('cancelled');
    expect((await gate.authorize(decision, action)).ok).toBe(false);
    await gate.close();
    await bus.close();
  });
});

describe('README: the validation snippet under Packages', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('shows exactly the code of tests/readme/validate.ts', () => {
    expect(readmeBlock('## Packages')).toBe(VALIDATE.slice(VALIDATE.indexOf('\nimport ') + 1));
  });

  it('runs and names the one missing field, as its last comment says', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./readme/validate.js');
    expect(log.mock.calls).toEqual([[{ missing_fields: ['key_levels[0].evidence'] }]]);
  });
});
