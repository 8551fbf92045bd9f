// The TSDoc @examples of loop-options.ts (ConflictPolicy) and tool-coverage.ts, compiled and run.
import { describe, expect, it } from 'vitest';
import { type ConflictPolicy, checkToolCoverage, defineDetector, type ToolCoverage } from '../src/index.js';

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
    const shipments = defineDetector({ name: 'shipment_claim', tools: ['ship'], detect: () => undefined });
    const refunds = defineDetector({ name: 'refund_claim', tools: ['refund'], detect: () => undefined });
    const detectors = [shipments, refunds];
    expect(checkToolCoverage(['ship', 'refund'], detectors)).toEqual({ ok: true });
    expect(checkToolCoverage(['ship', 'cancel_order'], detectors)).toEqual({
      ok: false,
      code: 'unchecked_tool',
      tools: ['cancel_order'],
    });
  });
});
