// The README's first code block runs here as a whole program and prints what its comment says.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('runs the first snippet and prints succeeded', async () => {
    const code = /```ts\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const body = code
      .replace(/^import \{ (.*) \} from '@parley\/core';$/m, 'const { $1 } = core;')
      .replace(/^import \{ (.*) \} from '@parley\/pipeline';$/m, 'const { $1 } = pipelineModule;');
    const core = await import('@parley/core');
    const pipelineModule = await import('../src/index.js');
    const run = new Function('core', 'pipelineModule', `return (async () => {\n${body}\n})();`);
    await run(core, pipelineModule);
    expect(log.mock.calls).toEqual([['succeeded']]);
  });
});
