import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A host keeps up to `maxSessions` handles open for many turns; what an idle handle holds is kept
// that long (and, past a young collection, copied into the old generation). Its last answer is not
// part of that: the caller had it. Asked of the collector itself, in a child process run with
// --expose-gc.

describe('an idle stored session', () => {
  it('lets go of the answer of its last write once it settled', () => {
    const src = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const script = `
      const { createMemoryStore } = await import('@parley/core');
      const { defineFlow } = await import('@parley/fsm');
      const { z } = await import('zod');
      const { createFlowSessionStore } = await import(${JSON.stringify(src)});
      const flow = defineFlow({ id: 'f', version: 1, steps: [
        { name: 'a', prompt: 'A?', fields: z.object({ a: z.string() }) },
        { name: 'b', prompt: 'B?', fields: z.object({ b: z.string() }) },
      ] });
      const sessions = createFlowSessionStore(flow, { store: createMemoryStore() });
      const started = await sessions.start('s1', {});
      const session = started.session;
      let answer = await session.submit({ a: 'x' });
      const ok = answer.ok && answer.result.ok;
      const ref = new WeakRef(answer);
      answer = undefined;
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 4; i++) globalThis.gc();
      // the handle is still held, and still answers in call order
      const next = await session.submit({ b: 'y' });
      console.log(JSON.stringify({ ok, kept: ref.deref() !== undefined, step: session.step, next: next.ok }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const seen = JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(seen).toEqual({ ok: true, kept: false, step: 'done', next: true });
  });
});
