import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineFlow, requestMachine, toMermaid } from '../src/index.js';
import { z } from 'zod';
import { cleanupFlow } from './cleanup-flow.js';
import { orderMachine } from './helpers.js';

// Goldens live in test/__golden__; set UPDATE_GOLDEN=1 to rewrite them after a deliberate change.
function golden(name: string, text: string): void {
  const file = new URL(`./__golden__/${name}.mmd`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

describe('toMermaid', () => {
  it('draws the request machine with its final states', () => {
    const text = toMermaid(requestMachine);
    expect(text.startsWith('stateDiagram-v2\n  [*] --> pending\n')).toBe(true);
    expect(text).toContain('  approved --> [*]');
    golden('request', text);
  });

  it('draws guards, timeouts and internal transitions', () => {
    const text = toMermaid(orderMachine);
    expect(text).toContain('draft --> review: submit [hasItems]');
    expect(text).toContain('review --> cancelled: timeout (after 60000ms)');
    expect(text).toContain('draft --> draft: add (internal)');
    golden('order', text);
  });

  it('draws the cleanup flow with its failure handling', () => {
    const text = toMermaid(cleanupFlow);
    expect(text).toContain('state "platform-scope" as platform_scope');
    expect(text).toContain('risk_confirm --> evidence: fail / back');
    expect(text).toContain('note right of risk_confirm: 3 answers in sequence');
    expect(text).toContain('close --> done: submit');
    expect(text).toContain('done --> [*]');
    expect(text).toContain('close --> close: fail / retry, mark close_pending');
    expect(text).toContain('execute --> execute: fail / retry once, then manual review (manual-execution)');
    golden('cleanup-flow', text);
  });

  it('matches the diagram in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(toMermaid(cleanupFlow));
  });

  it('draws skip conditions and failure policies of every kind', () => {
    const flow = defineFlow({
      id: 'kinds',
      version: 1,
      steps: [
        {
          name: 'a',
          prompt: '?',
          fields: z.object({}),
          onFailure: { action: 'block', message: 'b', mark: 'blocked_on_a' },
        },
        {
          name: 'b',
          prompt: '?',
          fields: z.object({}),
          skip: () => false,
          onFailure: () => ({ action: 'retry', message: 'r' }),
        },
        { name: 'c', prompt: '?', fields: z.object({}), skip: () => false, skipLabel: 'never' },
        {
          name: 'd',
          prompt: '?',
          fields: z.object({}),
          onFailure: (f) => ({ action: f.code === 'exit_failed' ? 'block' : 'retry', message: 'm' }),
          onFailureLabel: 'block on exit failure, else retry',
        },
      ],
    });
    const text = toMermaid(flow);
    expect(text).toContain('a --> a: fail / block, mark blocked_on_a');
    expect(text).toContain('a --> c: skip b [skip]');
    expect(text).toContain('b --> b: fail / policy(fn)');
    expect(text).not.toContain('by attempt');
    expect(text).toContain('b --> d: skip c [never]');
    expect(text).toContain('c --> c: fail / retry');
    expect(text).toContain('d --> d: fail / block on exit failure, else retry');
  });
});
