// The authoritative game state (spec §1, §3): characters with HP and status, the map's areas and
// paths, where everyone stands, and the world rules. Only the two tool executors change it, through
// the pure reducers at the bottom; the test replays the ledger of executed calls with the same
// reducers to prove nothing else did.

/** `alive_state` of a character sheet (spec §3). */
export type AliveState = 'alive' | 'downed' | 'dead' | 'restrained_permanent';

/** A character sheet in the document's field names (spec §3). */
export interface Character {
  readonly character_id: string;
  readonly name: string;
  readonly title: string;
  readonly background: string;
  readonly job: string;
  readonly race: string;
  readonly hp: { readonly current: number; readonly max: number };
  readonly skills: readonly { readonly name: string; readonly level?: number }[];
  readonly attributes: {
    readonly strength: number;
    readonly dexterity: number;
    readonly intelligence: number;
  };
  readonly status: { readonly alive_state: AliveState; readonly flags: readonly string[] };
}

export interface Area {
  readonly area_id: string;
  readonly name: string;
  /** Other names the narrative may use for it ("the gate" for the village gate). */
  readonly aliases: readonly string[];
}

/** A path between two areas; paths can be walked both ways. */
export interface MapPath {
  readonly path_id: string;
  readonly from: string;
  readonly to: string;
}

/** Everything system-owned, as one plain-JSON value (checkpoints copy it whole). */
export interface GameState {
  readonly world: {
    readonly world_id: string;
    /** The world background (spec §8.1): one input of the ultimate goal. */
    readonly background: string;
    readonly rules: Readonly<Record<string, string>>;
  };
  readonly map: {
    readonly map_id: string;
    readonly areas: Readonly<Record<string, Area>>;
    readonly paths: readonly MapPath[];
  };
  readonly characters: Readonly<Record<string, Character>>;
  /** character_id → area_id: the "区域位置" the narrative must never move by itself. */
  readonly positions: Readonly<Record<string, string>>;
}

/** What a tool executor changed, as the ledger and the turn log record it. */
export type WorldAction =
  | {
      readonly tool: 'move';
      readonly args: {
        readonly actor_id: string;
        readonly from_area_id: string;
        readonly to_area_id: string;
      };
    }
  | {
      readonly tool: 'hp_delta';
      readonly args: { readonly target_character_id: string; readonly delta: number };
      /** `rules.hp_zero_ends_game` as the settings snapshot of that turn said. */
      readonly hp_zero_ends_game: boolean;
    };

/** Applies a move; the executor has already checked that it is legal. */
export function applyMove(state: GameState, actorId: string, toAreaId: string): GameState {
  return { ...state, positions: { ...state.positions, [actorId]: toAreaId } };
}

/** Applies an HP change, clamped to 0…max; HP 0 downs a character, or kills when the rule says so. */
export function applyHpDelta(
  state: GameState,
  characterId: string,
  delta: number,
  hpZeroEndsGame: boolean,
): GameState {
  const character = state.characters[characterId];
  if (character === undefined) return state;
  const current = Math.min(character.hp.max, Math.max(0, character.hp.current + delta));
  const alive_state: AliveState =
    current === 0
      ? hpZeroEndsGame
        ? 'dead'
        : 'downed'
      : character.status.alive_state === 'downed'
        ? 'alive'
        : character.status.alive_state;
  return {
    ...state,
    characters: {
      ...state.characters,
      [characterId]: {
        ...character,
        hp: { ...character.hp, current },
        status: { ...character.status, alive_state },
      },
    },
  };
}

/** Applies one recorded action. */
export function applyAction(state: GameState, action: WorldAction): GameState {
  return action.tool === 'move'
    ? applyMove(state, action.args.actor_id, action.args.to_area_id)
    : applyHpDelta(state, action.args.target_character_id, action.args.delta, action.hp_zero_ends_game);
}

/** Replays a ledger from a starting state: what the state must be if only tools changed it. */
export function replayActions(start: GameState, actions: readonly WorldAction[]): GameState {
  return actions.reduce(applyAction, start);
}

/** The path joining two areas, if any (and it must be `pathId` when one is named). */
export function findPath(state: GameState, from: string, to: string, pathId?: string): MapPath | undefined {
  return state.map.paths.find(
    (path) =>
      ((path.from === from && path.to === to) || (path.from === to && path.to === from)) &&
      (pathId === undefined || path.path_id === pathId),
  );
}

/** Maps a place named in prose ("the old road on the ferry") to an area id, by name or alias. */
export function resolveArea(text: string, state: GameState): string | undefined {
  const said = text.toLowerCase().replace(/^the\s+/, '');
  for (const area of Object.values(state.map.areas)) {
    const names = [area.area_id, area.name, ...area.aliases].map((name) => name.toLowerCase());
    if (names.some((name) => said.startsWith(name))) return area.area_id;
  }
  return undefined;
}
