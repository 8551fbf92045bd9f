// The TRPG vocabulary of spec §7.1's third kind of conflict: prose that rewrites a world rule, the
// map or a character-sheet field. @parley/conflict's defineFieldClaimDetector does the matching;
// this file only says which authoritative fields exist and which words the story uses for them.
import { type AuthoritativeField, type Detector, defineFieldClaimDetector } from '@parley/conflict';
import type { AuthoritativeView } from './detectors.js';
import type { GameState } from './world.js';

/** How prose names a character besides its name and id: the pronouns and Chinese names the GM uses. */
export const CALLED: Readonly<Record<string, readonly string[]>> = {
  pc_aria: ['her', 'she', '她', '艾莉亚'],
  pc_bram: ['his', 'he', '他', '布拉姆'],
  npc_goblin: ['its', '斯尼克特'],
};

/** The sheet fields (spec §3) prose may name, and the words for each. */
const SHEET_FIELDS: Readonly<Record<'job' | 'race' | 'title', readonly string[]>> = {
  job: ['class', 'job', 'profession', '职业'],
  race: ['race', 'species', 'kin', '种族'],
  title: ['title', '称号'],
};

/**
 * Map-structure nouns: prose that says one of them is there is checked against the map (an area or
 * path whose id, name or alias holds the English word). The rope bridge exists; a tunnel does not.
 */
const MAP_FEATURES: Readonly<Record<string, readonly string[]>> = {
  bridge: ['bridge', '桥'],
  tunnel: ['tunnel', 'passage', '隧道', '地道'],
  tower: ['tower', '塔'],
  ferry: ['ferry', '渡口'],
  wall: ['wall', 'walls', '城墙'],
  road: ['road', '路'],
  gate: ['gate', '门'],
  chapel: ['chapel', '礼拜堂'],
  keep: ['keep', '要塞'],
};

/**
 * World rules (spec §1) in the words prose uses: the rule key, what it is called, what it holds
 * and the words that say the same.
 */
const RULE_TERMS: readonly {
  readonly rule: string;
  readonly names: readonly string[];
  readonly value: string;
  readonly equivalents: readonly string[];
}[] = [
  {
    rule: 'magic',
    names: ['magic', 'sorcery', '魔法'],
    value: 'rare',
    equivalents: ['low', 'scarce', 'unreliable', 'weak', 'faint', '稀少'],
  },
  {
    rule: 'lantern_oath',
    names: ['oath', '誓言'],
    value: 'binding',
    equivalents: ['sacred', 'unbroken', 'holy', '神圣'],
  },
];

/** Every authoritative field the narrative may name, read from the state of this turn. */
export function authoritativeFields(state: GameState): AuthoritativeField[] {
  const sheets = Object.values(state.characters).flatMap((character) => {
    const subjects = [character.name, character.character_id, ...(CALLED[character.character_id] ?? [])];
    return (Object.keys(SHEET_FIELDS) as (keyof typeof SHEET_FIELDS)[]).map((key) => ({
      field: `characters.${character.character_id}.${key}`,
      subjects,
      names: SHEET_FIELDS[key],
      value: character[key],
    }));
  });
  const places = [
    ...Object.values(state.map.areas).flatMap((area) => [area.area_id, area.name, ...area.aliases]),
    ...state.map.paths.map((path) => path.path_id),
  ].map((name) => name.toLowerCase());
  const features = Object.entries(MAP_FEATURES).map(([feature, names]) => ({
    field: `map.${feature}`,
    names,
    value: places.some((place) => place.split(/[\s_]+/).includes(feature)),
  }));
  const rules = RULE_TERMS.filter(({ rule }) => state.world.rules[rule] !== undefined).map((term) => ({
    field: `world.rules.${term.rule}`,
    names: term.names,
    value: term.value,
    equivalents: term.equivalents,
  }));
  return [...sheets, ...features, ...rules];
}

/** The narrative rewrites a world rule, the map or a sheet field in prose. */
export const worldRewriteDetector: Detector<AuthoritativeView> = defineFieldClaimDetector<AuthoritativeView>({
  name: 'world_rewrite',
  fields: authoritativeFields,
  instructions:
    'World rules, the map and character sheets are authoritative: never rewrite them in the story (no new bridges or passages, no changed class, race or title). Describe them as they are.',
});
