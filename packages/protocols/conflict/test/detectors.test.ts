import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLAIM_GUARD,
  DEFAULT_HP_CLAIM_PATTERNS,
  type DetectContext,
  defineDetector,
  defineHpClaimDetector,
  defineMoveClaimDetector,
  defineProtectedFieldsDetector,
  type Proposal,
  type ToolCall,
  toFeedbackMessages,
  toFeedbackText,
} from '../src/index.js';
import { hpCall, moveCall } from './helpers.js';

const context: DetectContext = { attempt: 1, applied: [] };
const hp = defineHpClaimDetector();
const evidence = async (text: string, calls: ToolCall[] = [], ctx = context) =>
  (await hp.detect({ text, tool_calls: calls }, {}, ctx)).map((conflict) => conflict.evidence);

describe('defineHpClaimDetector', () => {
  it.each([
    ['The arrow hits: you lose 5 HP.', 'lose 5 HP'],
    ['Borin takes 7 damage.', 'takes 7 damage'],
    ['She suffered 3 points of damage', 'suffered 3 points of damage'],
    ['HP -5', 'HP -5'],
    ['hp −2 from the fall', 'hp −2'],
    ['Your health drops sharply.', 'health drops'],
    ['你受到5点伤害。', '受到5点伤害'],
    ['你失去了五点生命。', '失去了五点生命'],
    ['生命值减少了。', '生命值减少了'],
    ['哥布林掉了十二点血', '掉了十二点血'],
  ])('finds the loss claim in %j', async (text, found) => {
    expect(await evidence(text)).toEqual([found]);
  });

  it.each([
    ['You regain 4 HP.', 4],
    ['HP +4', 4],
    ['Your health rises.', undefined],
    ['你恢复了二十五点生命值', 25],
    ['生命值增加 3', 3],
  ])('finds the gain claim in %j and accepts a matching positive delta', async (text, amount) => {
    expect(await evidence(text)).toHaveLength(1);
    expect(await evidence(text, [hpCall('c1', amount ?? 1)])).toEqual([]);
    expect(await evidence(text, [hpCall('c1', -(amount ?? 1))])).toHaveLength(1);
  });

  it('requires the claimed amount and sign', async () => {
    expect(await evidence('You lose 5 HP.', [hpCall('c1', -5)])).toEqual([]);
    expect(await evidence('You lose 5 HP.', [hpCall('c1', -4)])).toEqual(['lose 5 HP']);
    expect(await evidence('You lose 5 HP.', [hpCall('c1', 5)])).toEqual(['lose 5 HP']);
    expect(await evidence('生命值减少', [hpCall('c1', -1)])).toEqual([]);
    expect(await evidence('一百零五点伤害被你受到了', [])).toEqual([]);
    expect(await evidence('你受到一百零五点伤害', [hpCall('c1', -105)])).toEqual([]);
  });

  it('reports each unsettled claim once, with the expected delta in the reason', async () => {
    const found = await hp.detect({ text: 'You lose 5 HP. Then HP +2. 生命值减少' }, {}, context);
    expect(found.map((conflict) => conflict.mismatch_reason)).toEqual([
      'The text claims an HP change ("lose 5 HP") but no hp_delta call with delta -5 settles it',
      'The text claims an HP change ("HP +2") but no hp_delta call with delta +2 settles it',
      'The text claims an HP change ("生命值减少") but no hp_delta call with a negative delta settles it',
    ]);
  });

  it('lets a call executed in an earlier attempt settle the claim', async () => {
    const applied = [{ id: 'c1', tool: 'hp_delta', args: { delta: -5 } }];
    expect(await evidence('You lose 5 HP.', [], { attempt: 2, applied })).toEqual([]);
  });

  it('skips negated and conditional claims by default, and not when the guard is off', async () => {
    expect(await evidence("You don't take 5 damage. If you lose 3 HP, run. 你没有受到5点伤害。")).toEqual([]);
    const unguarded = defineHpClaimDetector({ guard: null });
    const found = await unguarded.detect({ text: 'If you lose 3 HP, run.' }, {}, context);
    expect(found).toHaveLength(1);
  });

  it('treats a claim with neither amount nor sign as settled by any call of the tool', async () => {
    const anyChange = defineHpClaimDetector({ patterns: [{ pattern: /\bwounded\b/i }] });
    expect(await anyChange.detect({ text: 'You are wounded' }, {}, context)).toHaveLength(1);
    const withCall = { text: 'You are wounded', tool_calls: [{ id: 'c', tool: 'hp_delta', args: {} }] };
    expect(await anyChange.detect(withCall, {}, context)).toEqual([]);
    const found = await anyChange.detect({ text: 'You are wounded' }, {}, context);
    expect(found[0]?.mismatch_reason).toBe(
      'The text claims an HP change ("wounded") but no hp_delta call settles it',
    );
  });

  it('does not count a call without a numeric delta for a claim with an amount', async () => {
    expect(
      await evidence('You lose 5 HP.', [{ id: 'c', tool: 'hp_delta', args: { delta: '5' } }]),
    ).toHaveLength(1);
  });

  it('takes a custom tool, delta reader, snippet, name, instructions and patterns', async () => {
    const custom = defineHpClaimDetector<{ hp: number }>({
      name: 'damage',
      tool: 'damage',
      deltaOf: (args) => -Number(args['amount']),
      snippet: (state, claim) => ({ hp: state.hp, claim }),
      instructions: '请通过 damage 工具结算。',
      patterns: [
        ...DEFAULT_HP_CLAIM_PATTERNS,
        { pattern: /\bbleeds? for (?<amount>\d+)\b/i, direction: 'loss' },
      ],
    });
    expect(custom.name).toBe('damage');
    const found = await custom.detect({ text: 'He bleeds for 3.' }, { hp: 9 }, context);
    expect(found).toEqual([
      {
        expected_state_snippet: { hp: 9, claim: 'bleeds for 3' },
        mismatch_reason:
          'The text claims an HP change ("bleeds for 3") but no damage call with delta -3 settles it',
        instructions: '请通过 damage 工具结算。',
        evidence: 'bleeds for 3',
      },
    ]);
    const settled = {
      text: 'He bleeds for 3.',
      tool_calls: [{ id: 'd', tool: 'damage', args: { amount: 3 } }],
    };
    expect(await custom.detect(settled, { hp: 9 }, context)).toEqual([]);
  });

  it('respects a global guard on every match', async () => {
    const global = defineHpClaimDetector({ guard: /\bnot\b/gi });
    const found = await global.detect({ text: 'You do not lose 1 HP. You do not lose 2 HP.' }, {}, context);
    expect(found).toEqual([]);
  });

  it('exposes the guard it uses', () => {
    expect(DEFAULT_CLAIM_GUARD.test('你无法')).toBe(true);
  });
});

describe('defineMoveClaimDetector', () => {
  interface Campaign {
    readonly at: string;
  }
  const areas: Record<string, string> = { tavern: 'tavern', 酒馆: 'tavern', vault: 'vault', 金库: 'vault' };
  const resolveArea = (text: string) =>
    Object.keys(areas).find((name) => text.startsWith(name)) &&
    areas[Object.keys(areas).find((name) => text.startsWith(name))!];
  const move = defineMoveClaimDetector<Campaign>({ resolveArea, currentAreas: (state) => [state.at] });
  const market: Campaign = { at: 'market' };
  const found = async (proposal: Proposal, state = market) =>
    (await move.detect(proposal, state, context)).map((conflict) => conflict.evidence);

  it.each([
    ['You move to the tavern.', 'move to the tavern'],
    ['They walk into the vault and look around', 'walk into the vault and look around'],
    ['The party enters the tavern', 'enters the tavern'],
    ['You arrive at the tavern', 'arrive at the tavern'],
    ['你们来到酒馆。', '来到酒馆'],
    ['你前往金库，', '前往金库'],
    ['他们走进了酒馆', '走进了酒馆'],
  ])('finds the move claim in %j', async (text, claim) => {
    expect(await found({ text })).toEqual([claim]);
  });

  it('accepts a move call to the claimed area and refuses one to another area', async () => {
    expect(await found({ text: '你们来到酒馆。', tool_calls: [moveCall('m1', 'tavern')] })).toEqual([]);
    const wrong = await move.detect(
      { text: '你们来到酒馆。', tool_calls: [moveCall('m1', 'vault')] },
      market,
      context,
    );
    expect(wrong[0]).toMatchObject({
      expected_state_snippet: { current_area_ids: ['market'], claimed_area_id: 'tavern' },
      mismatch_reason:
        'The text claims a move ("来到酒馆") but no move call to tavern was proposed, so the position has not changed',
    });
  });

  it('passes a claim of arriving where the party already is', async () => {
    expect(await found({ text: 'You walk into the tavern.' }, { at: 'tavern' })).toEqual([]);
  });

  it('does not pass a claim of arriving where the party is when the same turn moves it elsewhere', async () => {
    const claims = await found(
      { text: 'You walk into the vault. You walk into the tavern.', tool_calls: [moveCall('m1', 'vault')] },
      { at: 'tavern' },
    );
    expect(claims).toEqual(['walk into the tavern']);
  });

  it('accepts any move call when the area cannot be resolved', async () => {
    expect(await found({ text: 'You head to the old mill.', tool_calls: [moveCall('m1', 'mill')] })).toEqual(
      [],
    );
    expect(await found({ text: 'You head to the old mill.' })).toEqual(['head to the old mill']);
  });

  it('skips a negated move', async () => {
    expect(await found({ text: 'You cannot move to the vault. 你无法进入金库。' })).toEqual([]);
  });

  it('works without a resolver, and with a custom tool, destination reader and instructions', async () => {
    const plain = defineMoveClaimDetector();
    const bare = await plain.detect({ text: 'You go to the tavern.' }, {}, context);
    expect(bare[0]).toMatchObject({
      expected_state_snippet: { current_area_ids: null, claimed_area_id: null },
      instructions: expect.stringContaining('move tool call'),
    });
    const custom = defineMoveClaimDetector<Campaign>({
      tool: 'travel',
      resolveArea: () => 'tavern',
      destinationOf: (args) => String(args['to']),
      instructions: '请通过 travel 工具移动。',
    });
    const call = { id: 't', tool: 'travel', args: { to: 'tavern' } };
    expect(
      await custom.detect({ text: 'You go to the tavern.', tool_calls: [call] }, market, context),
    ).toEqual([]);
    const missing = await custom.detect({ text: 'You go to the tavern.' }, market, context);
    expect(missing[0]?.instructions).toBe('请通过 travel 工具移动。');
    const noTo = await defineMoveClaimDetector({ resolveArea: () => 'tavern' }).detect(
      { text: 'You go to the tavern.', tool_calls: [{ id: 'm', tool: 'move', args: {} }] },
      market,
      context,
    );
    expect(noTo).toHaveLength(1);
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
    expect(() => defineHpClaimDetector({ name: '' })).toThrow(
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
  it('counts an applied action without args as a call with no delta or destination', async () => {
    const applied = [
      { id: 'a', tool: 'hp_delta' },
      { id: 'b', tool: 'move' },
    ];
    const ctx = { attempt: 2, applied };
    expect(await hp.detect({ text: 'You lose 1 HP.' }, {}, ctx)).toHaveLength(1);
    const move = defineMoveClaimDetector({ resolveArea: () => 'tavern' });
    expect(await move.detect({ text: 'You go to the tavern.' }, {}, ctx)).toHaveLength(1);
  });

  it('accepts custom move patterns without an area group and global patterns', async () => {
    const move = defineMoveClaimDetector({
      patterns: [{ pattern: /\bteleports?\b/gi }],
      resolveArea: () => 'never',
    });
    const found = await move.detect({ text: 'She teleports. He teleports.' }, {}, context);
    expect(found.map((conflict) => conflict.evidence)).toEqual(['teleports', 'teleports']);
  });

  it('reads an unknown numeral character as zero', async () => {
    const odd = defineHpClaimDetector({
      patterns: [{ pattern: /掉了(?<amount>几)点血/u, direction: 'loss' }],
    });
    const found = await odd.detect({ text: '掉了几点血' }, {}, context);
    expect(found[0]?.mismatch_reason).toContain('delta -0');
  });

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
