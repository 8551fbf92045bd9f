// The TSDoc @examples of loop-options.ts (ConflictPolicy) and tool-coverage.ts, compiled and run.
import { describe, expect, it } from 'vitest';
import {
  type ConflictPolicy,
  checkToolCoverage,
  defineHpClaimDetector,
  defineMoveClaimDetector,
  type ToolCoverage,
} from '../src/index.js';

describe('loop-options.ts examples', () => {
  it('ConflictPolicy', () => {
    const policy: ConflictPolicy = { maxRetries: 1, interceptOutput: true, retryWithDebug: false };
    expect(policy.retryWithDebug).toBe(false);
  });
});

describe('tool-coverage.ts examples', () => {
  it('ToolCoverage', () => {
    const refused: ToolCoverage = { ok: false, code: 'unchecked_tool', tools: ['teleport'] };
    expect(refused.ok).toBe(false);
  });

  it('checkToolCoverage', () => {
    const detectors = [defineHpClaimDetector(), defineMoveClaimDetector()];
    expect(checkToolCoverage(['hp_delta', 'move'], detectors)).toEqual({ ok: true });
    expect(checkToolCoverage(['hp_delta', 'teleport'], detectors)).toEqual({
      ok: false,
      code: 'unchecked_tool',
      tools: ['teleport'],
    });
  });
});
