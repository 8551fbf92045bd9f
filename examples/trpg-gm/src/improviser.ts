// The stand-in GM of `--interactive`: a scripted model's `respond` function that reads the request
// like a model would (the state block in the system prompt, the player's line, the feedback
// appended after a rejected draft) and proposes narrative plus tool calls. It is not clever; it is
// there so a person can poke the host: move during combat, claim damage in rules mode, and so on.
import type { Proposal, ToolCall } from '@parley/conflict';
import type { GmRequest } from './context.js';

type Who = { readonly character_id: string; readonly name?: string; readonly area_id?: string };

/** The state block buildContext writes into the system prompt, as this stand-in reads it back. */
interface Snippet {
  readonly party: readonly Who[];
  readonly others: readonly Who[];
  readonly paths: readonly string[];
  readonly rules?: Readonly<Record<string, string>>;
}

export function improvise(request: GmRequest): Proposal {
  const state = readSnippet(request);
  const input = request.player.input.toLowerCase();
  const me = state.party.find((member) => member.character_id === request.player.actor_id);
  if (request.dialog_type === 'rules') {
    return { text: Object.values(state.rules ?? {}).join(' ') || 'The rules say nothing about that.' };
  }
  const last = request.appended.at(-1);
  if (last !== undefined) {
    const why =
      last.tool_feedback?.failed_calls[0]?.reason ?? last.conflict_debug[0]?.mismatch_reason ?? 'no';
    return { text: `The GM pauses: that cannot happen right now (${why}). What do you do instead?` };
  }
  const here = me?.area_id;
  const exits = state.paths
    .map((path) => /^(\S+) <-\S+-> (\S+)$/.exec(path))
    .flatMap((m) => (m === null ? [] : [[m[1], m[2]] as const]))
    .flatMap(([a, b]) => (a === here ? [b] : b === here ? [a] : []))
    .filter((area): area is string => area !== undefined);
  const target = exits.find((area) => input.includes(area.replace('_', ' ')) || input.includes(area));
  if (me !== undefined && here !== undefined && target !== undefined) {
    const calls: ToolCall[] = [
      {
        id: 'call_1',
        tool: 'move',
        args: { actor_id: me.character_id, from_area_id: here, to_area_id: target },
      },
    ];
    return {
      text: `${me.name ?? me.character_id} heads to the ${target.replace('_', ' ')}.`,
      tool_calls: calls,
    };
  }
  const foe = state.others.find((other) => other.area_id === here);
  if (me !== undefined && foe !== undefined && /\b(attack|shoot|hit|strike)\b/.test(input)) {
    return {
      text: `${me.name ?? me.character_id} strikes ${foe.name ?? foe.character_id}, who loses 3 HP.`,
      tool_calls: [
        {
          id: 'call_1',
          tool: 'hp_delta',
          args: { target_character_id: foe.character_id, delta: -3, cause: 'attack' },
        },
      ],
    };
  }
  return {
    text: `The wind stirs around ${me?.name ?? 'you'}. Exits from here: ${exits.join(', ') || 'none'}.`,
  };
}

function readSnippet(request: GmRequest): Snippet {
  const block = request.messages.find(
    (m) => m.role === 'system' && m.content.startsWith('Authoritative state'),
  );
  const json = block?.content.slice(block.content.indexOf('\n') + 1) ?? '{}';
  const parsed = JSON.parse(json) as Partial<Snippet>; // written by buildContext from the same shape
  return { party: [], others: [], paths: [], ...parsed };
}
