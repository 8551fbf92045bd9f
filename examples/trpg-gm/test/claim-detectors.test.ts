// Spec §7.1's first two examples as this game's detectors (src/hp-claim.ts, src/move-claim.ts),
// built on @parley/conflict's findClaims and defineDetector: HP and move claims in the narrative
// need an hp_delta / move call that settles them.
import type { DetectContext, Proposal, ToolCall } from '@parley/conflict';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HP_CLAIM_PATTERNS, DEFAULT_MOVE_CLAIM_PATTERNS } from '../src/claim-patterns.js';
import { defineHpClaimDetector } from '../src/hp-claim.js';
import { defineMoveClaimDetector } from '../src/move-claim.js';

const context: DetectContext = { attempt: 1, applied: [] };
const hp = defineHpClaimDetector();
const evidence = async (text: string, calls: ToolCall[] = [], ctx = context) =>
  (await hp.detect({ text, tool_calls: calls }, {}, ctx)).map((conflict) => conflict.evidence);

const hpCall = (id: string, delta: number): ToolCall => ({
  id,
  tool: 'hp_delta',
  args: { target_character_id: 'pc_1', delta, cause: 'arrow' },
});

const moveCall = (id: string, to: string): ToolCall => ({
  id,
  tool: 'move',
  args: { actor_id: 'pc_1', from_area_id: 'market', to_area_id: to },
});

const calls = (n: number, make: (i: number) => ToolCall): ToolCall[] =>
  Array.from({ length: n }, (_, i) => make(i));

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

describe('edge cases of the HP and move detectors', () => {
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
});

describe('HP claims matched to effects', () => {
  it('lets a claim without an amount share the effect an amount claim used', async () => {
    const found = await defineHpClaimDetector().detect(
      { text: 'You take 5 damage. Your HP drops.', tool_calls: [hpCall('c1', -5)] },
      {},
      { attempt: 1, applied: [] },
    );
    expect(found).toEqual([]);
  });

  it('settles a claim of either sign with an effect of either sign, once per effect', async () => {
    const either = defineHpClaimDetector({ patterns: [{ pattern: /\bchanges by (?<amount>\d+)\b/ }] });
    const found = await either.detect(
      {
        text: 'HP changes by 4. HP changes by 4. HP changes by 4.',
        tool_calls: [hpCall('a', -4), hpCall('b', 4)],
      },
      {},
      { attempt: 2, applied: [] },
    );
    expect(found).toHaveLength(1);
  });
});

describe('the HP and move detectors on long model output', () => {
  it('[EFFECT-04] read each call once, not once per claim, when matching HP claims to calls', async () => {
    const reads = async (n: number): Promise<number> => {
      let count = 0;
      const hp = defineHpClaimDetector({
        deltaOf: (args) => {
          count++;
          return Number(args['delta']);
        },
      });
      const proposal = {
        text: 'You lose 9 HP. '.repeat(n),
        tool_calls: calls(n, (i) => hpCall(`c${i}`, -(i % 7) - 1)),
      };
      await hp.detect(proposal, {}, context);
      return count;
    };
    expect((await reads(800)) / (await reads(100))).toBeLessThan(16);
  });

  it('[EFFECT-04] read each move call once, not once per claim', async () => {
    const reads = async (n: number): Promise<number> => {
      let count = 0;
      const move = defineMoveClaimDetector({
        resolveArea: (text) => text.split(' ')[0],
        destinationOf: (args) => {
          count++;
          return String(args['to_area_id']);
        },
      });
      const proposal = {
        text: 'you walk into the tavern. '.repeat(n),
        tool_calls: calls(n, (i) => moveCall(`m${i}`, `area_${i}`)),
      };
      await move.detect(proposal, {}, context);
      return count;
    };
    expect((await reads(800)) / (await reads(100))).toBeLessThan(16);
  });

  it('return the same claims a clause guard would skip, however long the text', async () => {
    const hp = defineHpClaimDetector();
    const found = await hp.detect(
      { text: `${'x '.repeat(10_000)}if you lose 5 HP; you lose 6 HP` },
      {},
      context,
    );
    expect(found.map((conflict) => conflict.evidence)).toEqual(['lose 6 HP']);
  });

  it('cut a claim of any length to a bounded evidence and reason', async () => {
    const hp = defineHpClaimDetector();
    const found = await hp.detect({ text: `you lose ${'9'.repeat(50_000)} HP` }, {}, context);
    expect(found[0]?.evidence?.length).toBeLessThanOrEqual(120);
    expect(found[0]?.mismatch_reason.length).toBeLessThan(400);
  });
});

describe('the default phrases', () => {
  it('can be extended and find a move in Chinese', () => {
    const patterns = [
      ...DEFAULT_HP_CLAIM_PATTERNS,
      { pattern: /\bbleeds? for (?<amount>\d+)\b/i, direction: 'loss' as const },
    ];
    expect(patterns.length).toBeGreaterThan(DEFAULT_HP_CLAIM_PATTERNS.length);
    expect(DEFAULT_MOVE_CLAIM_PATTERNS.some(({ pattern }) => pattern.test('你们来到酒馆'))).toBe(true);
  });
});

describe('the detectors as their TSDoc shows them', () => {
  it('defineHpClaimDetector finds a Chinese damage claim and passes a settled English one', async () => {
    const bad = await hp.detect({ text: '哥布林的箭射中了你，你受到5点伤害。' }, {}, context);
    const good = await hp.detect({ text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] }, {}, context);
    expect([bad.length, good.length]).toEqual([1, 0]);
  });

  it('defineMoveClaimDetector passes arriving where the party already is', async () => {
    const move = defineMoveClaimDetector<{ at: string }>({
      resolveArea: (text) => (text.startsWith('酒馆') || text.startsWith('tavern') ? 'tavern' : undefined),
      currentAreas: (state) => [state.at],
    });
    const bad = await move.detect({ text: '你们来到酒馆。' }, { at: 'market' }, context);
    const already = await move.detect({ text: 'You walk into the tavern.' }, { at: 'tavern' }, context);
    expect([bad.length, already.length]).toEqual([1, 0]);
  });

  it('throws invalid_argument for an empty name', () => {
    expect(() => defineHpClaimDetector({ name: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => defineMoveClaimDetector({ name: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
