import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLAIM_GUARD,
  type DetectContext,
  defineDetector,
  defineFieldClaimDetector,
  defineProtectedFieldsDetector,
  findClaims,
  toFeedbackMessages,
  toFeedbackText,
} from '../src/index.js';

const context: DetectContext = { attempt: 1, applied: [] };
const shipPatterns = [
  { pattern: /\bships? (?<count>\d+) crates?\b/i },
  { pattern: /(?:发货|发出)(?<count>\d+)箱/u },
];
const found = (text: string, guard?: RegExp | null) =>
  findClaims(text, shipPatterns, guard).map((claim) => claim.text);

describe('findClaims', () => {
  it('finds each claim with its named groups and the pattern that matched', () => {
    expect(findClaims('We ship 5 crates. 今天发货3箱。', shipPatterns)).toEqual([
      { text: 'ship 5 crates', groups: { count: '5' }, pattern: 0 },
      { text: '发货3箱', groups: { count: '3' }, pattern: 1 },
    ]);
  });

  it('skips negated and conditional claims by default, and not when the guard is off', () => {
    expect(found("We don't ship 5 crates. If we ship 3 crates, call. 我们没有发货5箱。")).toEqual([]);
    expect(found('If we ship 3 crates, call.', null)).toEqual(['ship 3 crates']);
  });

  it('guards only the clause the negation is in', () => {
    expect(found('We cannot wait. We ship 2 crates.')).toEqual(['ship 2 crates']);
  });

  it('respects a global guard on every match', () => {
    expect(found('We do not ship 1 crate. We do not ship 2 crates.', /\bnot\b/gi)).toEqual([]);
  });

  it('counts overlapping matches once, the earlier pattern winning', () => {
    const claims = findClaims('ship 5 crates', [{ pattern: /ship 5/ }, { pattern: /5 crates/ }]);
    expect(claims).toEqual([{ text: 'ship 5', groups: {}, pattern: 0 }]);
  });

  it('finds every match of a global or sticky pattern and skips empty matches', () => {
    const text = 'She teleports. He teleports.';
    for (const pattern of [/\bteleports?\b/g, /\bteleports?\b/y]) {
      const claims = findClaims(text, [{ pattern }, { pattern: /x*/ }]);
      expect(claims.map((claim) => claim.text)).toEqual(['teleports', 'teleports']);
    }
  });

  it('trims the groups and leaves a group that did not take part undefined', () => {
    const [claim] = findClaims('ship  crates', [{ pattern: /ship(?<count> \d+)?(?<what> +crates)/ }]);
    expect(claim?.groups).toEqual({ count: undefined, what: 'crates' });
  });

  it('exposes the guard it uses', () => {
    expect(DEFAULT_CLAIM_GUARD.test('你无法')).toBe(true);
  });
});

describe('defineProtectedFieldsDetector', () => {
  const state = {
    world: { rules: { magic: 'rare' } },
    characters: {
      pc_1: { hp: { current: 12, max: 20 }, race: 'dwarf' },
      pc_2: { hp: { current: 5, max: 8 }, race: 'elf' },
    },
  };
  const sheet = defineProtectedFieldsDetector({
    fields: ['world.rules', 'characters.*.hp.max', 'characters.*.race'],
  });
  const check = async (structured: Record<string, unknown> | undefined) =>
    (await sheet.detect({ text: '', structured }, state, context)).map((conflict) => conflict.evidence);

  it('passes when protected fields equal the authoritative state or are absent', async () => {
    expect(await check(undefined)).toEqual([]);
    expect(
      await check({
        characters: { pc_1: { hp: { current: 3, max: 20 } } },
        world: { rules: { magic: 'rare' } },
      }),
    ).toEqual([]);
  });

  it('reports each rewritten field with the authoritative value', async () => {
    const found = await sheet.detect(
      { text: '', structured: { characters: { pc_1: { hp: { max: 30 } }, pc_2: { race: 'orc' } } } },
      state,
      context,
    );
    expect(found).toEqual([
      {
        expected_state_snippet: { 'characters.pc_1.hp.max': 20 },
        mismatch_reason:
          'The output rewrites "characters.pc_1.hp.max", which only the system may change (authoritative: 20, proposed: 30)',
        instructions: expect.stringContaining('characters.*.hp.max'),
        evidence: 'characters.pc_1.hp.max',
      },
      expect.objectContaining({ evidence: 'characters.pc_2.race' }),
    ]);
  });

  it('reports a deep change, an added field and a replaced container', async () => {
    expect(await check({ world: { rules: { magic: 'common' } } })).toEqual(['world.rules']);
    expect(await check({ characters: { pc_9: { race: 'gnome' } } })).toEqual(['characters.pc_9.race']);
    expect(await check({ characters: { pc_1: { hp: null } } })).toEqual(['characters.pc_1.hp']);
    expect(await check({ world: { rules: ['no magic'] } })).toEqual(['world.rules']);
    expect(await check({ world: { rules: { magic: 'rare', extra: 1 } } })).toEqual(['world.rules']);
  });

  it('reports added values with null as the authoritative snippet and a long value shortened', async () => {
    const found = await sheet.detect(
      { text: '', structured: { world: { rules: { text: 'x'.repeat(100) } } } },
      {},
      context,
    );
    expect(found[0]?.expected_state_snippet).toEqual({ 'world.rules': null });
    expect(found[0]?.mismatch_reason).toContain('authoritative: absent');
    expect(found[0]?.mismatch_reason).toContain('...)');
  });

  it('reads the proposed state where told to', async () => {
    const patch = defineProtectedFieldsDetector({
      name: 'sheet',
      fields: ['race'],
      proposed: (proposal) => proposal.structured?.['patch'],
      instructions: 'leave it',
    });
    const found = await patch.detect(
      { text: '', structured: { patch: { race: 'orc' } } },
      { race: 'elf' },
      context,
    );
    expect(found).toMatchObject([{ evidence: 'race', instructions: 'leave it' }]);
  });

  it('throws invalid_argument without fields', () => {
    for (const fields of [[], [''], 'x']) {
      expect(() => defineProtectedFieldsDetector({ fields } as never)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});

describe('defineDetector', () => {
  it('normalises nothing, one conflict and a list', async () => {
    const conflict = {
      expected_state_snippet: undefined,
      mismatch_reason: 'm',
      instructions: 'i',
      call_id: 'c1',
    };
    for (const [result, length] of [
      [undefined, 0],
      [null, 0],
      [false, 0],
      [conflict, 1],
      [[conflict, conflict], 2],
    ] as const) {
      const detector = defineDetector({ name: 'd', detect: () => result });
      expect(await detector.detect({ text: '' }, {}, context)).toHaveLength(length);
    }
    const [one] = await defineDetector({ name: 'd', detect: async () => conflict }).detect(
      { text: '' },
      {},
      context,
    );
    expect(one).toEqual({
      expected_state_snippet: null,
      mismatch_reason: 'm',
      instructions: 'i',
      call_id: 'c1',
    });
  });

  it('rejects with detector_failed on a malformed conflict', async () => {
    const detector = defineDetector({ name: 'd', detect: () => [null] as never });
    await expect(detector.detect({ text: '' }, {}, context)).rejects.toMatchObject({
      code: 'detector_failed',
    });
  });

  it('throws invalid_argument without a name or a detect function', () => {
    expect(() => defineDetector({ name: ' ', detect: () => undefined })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => defineDetector({ name: 'x' } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => defineFieldClaimDetector({ name: '', fields: () => [] })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('toFeedbackText', () => {
  it('writes each rejected attempt with the document field names', () => {
    const text = toFeedbackText(
      [
        {
          attempt: 1,
          conflict_debug: [
            {
              detector: 'hp_claim',
              evidence: 'x',
              expected_state_snippet: { hp: 20 },
              mismatch_reason: 'm',
              instructions: 'i',
            },
          ],
          rejected_output: { text: 'secret' },
        },
        {
          attempt: 2,
          conflict_debug: [],
          review: { verdict: 'revise', issues: [{ description: 'd' }], revise_target: 'r' },
        },
        { attempt: 3, conflict_debug: [], review: { verdict: 'revise' } },
      ],
      {},
    );
    expect(text).toContain('Attempt 1 was rejected');
    expect(text).toContain('"expected_state_snippet"');
    expect(text).not.toContain('"detector"');
    expect(text).not.toContain('secret');
    expect(text).toContain('"revise_target": "r"');
    expect(text).toContain('"issues": []');
  });

  it('includes the rejected output when asked', () => {
    const text = toFeedbackText([{ attempt: 1, conflict_debug: [], rejected_output: { text: 'shown' } }], {
      includeOutput: true,
    });
    expect(text).toContain('shown');
    expect(toFeedbackText([])).toBe('');
  });
});

describe('edge cases of the ready detectors', () => {
  it('ignores a proposed root that is not an object and shows values JSON cannot', async () => {
    const plain = defineProtectedFieldsDetector({ fields: ['race'], proposed: () => 'orc' });
    expect(await plain.detect({ text: '' }, { race: 'elf' }, context)).toEqual([]);
    const fn = defineProtectedFieldsDetector({ fields: ['race'], proposed: () => ({ race: () => 1 }) });
    const [found] = await fn.detect({ text: '' }, { race: 'elf' }, context);
    expect(found?.mismatch_reason).toContain('proposed: () => 1');
  });

  it('writes tool_feedback into the feedback text', () => {
    const text = toFeedbackText([
      {
        attempt: 1,
        conflict_debug: [],
        tool_feedback: { failed_calls: [{ id: 'c', tool: 'move', status: 'error', reason: 'r' }] },
      },
    ]);
    expect(text).toContain('"failed_calls"');
    expect(text).not.toContain('conflict_debug');
  });
});

describe('toFeedbackMessages', () => {
  it('echoes each rejected draft with its calls, then its feedback, in order', () => {
    const call = { id: 'c1', tool: 'move', args: { to: 'gate' } };
    const messages = toFeedbackMessages([
      { attempt: 1, conflict_debug: [], rejected_output: { text: 'A', tool_calls: [call] } },
      { attempt: 2, conflict_debug: [], rejected_output: 'not a proposal' },
      { attempt: 3, conflict_debug: [] },
    ]);
    expect(messages.map((m) => m.content.split('\n')[0])).toEqual([
      JSON.stringify({ text: 'A', tool_calls: [call] }),
      'Attempt 1 was rejected. Correct it as follows:',
      '"not a proposal"',
      'Attempt 2 was rejected. Correct it as follows:',
      'null',
      'Attempt 3 was rejected. Correct it as follows:',
    ]);
    expect(toFeedbackMessages([])).toEqual([]);
  });
});
