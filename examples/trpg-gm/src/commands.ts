// The players' console of `--interactive`: each typed line is a turn ("aria: I walk to the market",
// or plain text for the active player) or a command. Everything goes through the same session API
// a chat bot would call; refusals come back as data and are printed with their code.
import type { GmSession } from './session.js';
import { describeState, describeTurn } from './transcript.js';

export const HELP =
  'aria: … | bram: … | /type <scene|action|rules|free_chat> | /set <key> <json> | /combat | /peace | /rollback <turn_id> | /undo | /state | /log | /quit';

const PLAYERS: Readonly<Record<string, string>> = { aria: 'pc_aria', bram: 'pc_bram' };

export interface PlayerConsole {
  /** The player who speaks when a line names nobody. */
  readonly actor: string;
  /** Handles one line; returns the lines to print, or `undefined` for /quit. */
  handle(line: string): Promise<readonly string[] | undefined>;
}

const refused = (result: { code: string; reason?: string }): string =>
  `refused (${result.code})${result.reason === undefined ? '' : `: ${result.reason}`}`;

/** `/set key value`: the value as JSON when it parses, as a string otherwise (the schema decides). */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function command(session: GmSession, name: string, arg: string): Promise<readonly string[]> {
  const who = (id: string): string => session.state.characters[id]?.name ?? id;
  switch (name) {
    case '/help':
      return [HELP];
    case '/state':
      return [describeState(session)];
    case '/log':
      return session.turnLog.map((t) => `${t.turn_id} (turn ${t.turn}) ${who(t.actor_id)}: ${t.user_input}`);
    case '/type': {
      const result = await session.selectDialogType(arg);
      return [result.ok ? `dialog type "${arg}" from the next turn` : refused(result)];
    }
    case '/set': {
      const [key = '', ...words] = arg.split(/\s+/);
      const result = await session.changeSetting(key, parseValue(words.join(' ')));
      return [result.ok ? `${key} saved for the next turn` : refused(result)];
    }
    case '/combat':
    case '/peace': {
      const result = session.hostEvent(name === '/combat' ? 'start_combat' : 'end_combat');
      return [result.ok ? `phase: ${result.to}` : refused(result)];
    }
    case '/rollback': {
      const result = await session.rollback(arg);
      return [result.ok ? `rolled back to ${arg}; /undo until your next command` : refused(result)];
    }
    case '/undo': {
      const result = await session.undo();
      return [result.ok ? `undone: back to ${result.restored_turn_id}` : refused(result)];
    }
    default:
      return [`unknown command ${name}; ${HELP}`];
  }
}

export function createPlayerConsole(session: GmSession): PlayerConsole {
  let actor = 'pc_aria';
  return {
    get actor() {
      return actor;
    },
    async handle(raw) {
      const line = raw.trim();
      if (line === '') return [];
      const [name = '', ...rest] = line.split(/\s+/);
      if (name === '/quit') return undefined;
      if (name.startsWith('/')) return command(session, name, rest.join(' '));
      const named = /^(\w+):\s*(.*)$/.exec(line);
      const id = named?.[1] === undefined ? undefined : PLAYERS[named[1].toLowerCase()];
      if (id !== undefined) actor = id;
      const result = await session.turn({
        actor_id: actor,
        user_input: id === undefined ? line : (named?.[2] ?? ''),
      });
      return result.ok
        ? describeTurn(result, (a) => session.state.characters[a]?.name ?? a)
        : [refused(result)];
    },
  };
}
