// The lead's console of `--interactive`: the person plays the lead and types commands; teammates
// still follow their scripts. Simulated time: each command lets a few seconds pass so answers
// arrive, and `wait <seconds>` jumps ahead (shutdown requests expire after 30 s).
import type { LeadAgent } from './lead.js';
import type { Team } from './team.js';
import { clockTime } from '@parley/testing';

/** Simulated time that passes after each command, so teammates' answers arrive. */
export const TICK_MS = 5_000;

export const HELP = `You are the lead. Commands:
  /team                             every teammate and every request (also: team)
  spawn <name>                      spawn a teammate by name (alice, bob, carol, dave, erin, charlie)
  list                              the teammates and their status, one line each
  ask <instruction…>                (with --lead-model) tell the lead's model what to do, e.g. the
                                    document's try-it prompt: ask Spawn alice as a coder. Then
                                    request her shutdown. The model then reviews plans itself.
  shutdown <name> [reason…]         ask a teammate to shut down
  approve <request_id> [note…]      approve a plan a teammate submitted
  reject <request_id> <feedback…>   reject a plan, with feedback (bob revises it)
  cancel <request_id>               withdraw a pending shutdown request
  wait <seconds>                    let simulated time pass
  forge <teammate> <request_id>     have a teammate answer a request that is not theirs
  trackers                          shutdown_requests and plan_requests as JSON
  /help   /quit (also Ctrl-D)
Teammates (once spawned): alice approves a shutdown, carol is busy for 10 minutes, dave never answers,
erin's link is 45 s slow, bob and charlie ask you to approve their plans (bob's first one is risky).`;

export interface LeadConsole {
  /** The prompt, with the simulated time. */
  prompt(): string;
  /** Handles one typed line; resolves the lines to print, or `undefined` for /quit. */
  handle(line: string): Promise<readonly string[] | undefined>;
}

/** `lead`: the lead's model, for `ask`; without it `ask` says there is none. */
export function createLeadConsole(team: Team, lead?: LeadAgent): LeadConsole {
  async function command(name: string, args: readonly string[]): Promise<readonly string[]> {
    const [first = '', ...rest] = args;
    const text = rest.join(' ');
    switch (name) {
      case '/help':
      case 'help':
        return [HELP];
      case '/team':
      case 'team':
        return [team.view()];
      case 'trackers':
        return [JSON.stringify(team.roster.trackers(), null, 2)];
      case 'spawn': {
        if (first === '') return ['usage: spawn <name>'];
        const spawned = team.spawn(first);
        if (!spawned.ok) return [`refused (${spawned.code}): ${spawned.message}`];
        await team.advance(TICK_MS);
        return [];
      }
      case 'list':
        return team.members.map((m) => `${m.name} (${m.role}): ${m.status}`);
      case 'ask': {
        const instruction = [first, ...rest].join(' ');
        if (lead === undefined)
          return ['no lead model in this session: start with --interactive --lead-model'];
        if (instruction === '') return ['usage: ask <instruction…>'];
        lead.instruct(instruction);
        await team.advance(TICK_MS);
        return [];
      }
      case 'shutdown': {
        if (first === '') return ['usage: shutdown <name> [reason…]'];
        const sent = await team.requestShutdown(first, text === '' ? undefined : text);
        if (!sent.ok) return [`refused (${sent.code}): ${sent.message}`];
        await team.advance(TICK_MS);
        return [];
      }
      case 'approve':
      case 'reject': {
        if (first === '' || (name === 'reject' && text === '')) return [`usage: ${name} <request_id> …`];
        const result = team.review(first, name === 'approve', text === '' ? undefined : text);
        if (!result.ok) return [`refused (${result.code}): ${result.message}`];
        await team.advance(TICK_MS);
        return [];
      }
      case 'cancel': {
        if (first === '') return ['usage: cancel <request_id>'];
        return (await team.cancel(first))
          ? []
          : [`nothing to cancel: ${first} is not a pending request of the lead`];
      }
      case 'wait': {
        const seconds = Number(first);
        if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 24 * 3600)
          return ['usage: wait <seconds>'];
        await team.advance(seconds * 1000);
        return [];
      }
      case 'forge': {
        if (first === '' || rest[0] === undefined) return ['usage: forge <teammate> <request_id>'];
        const refused = team.forge(first, rest[0], {
          approve: true,
          reason: `${first} answers for someone else`,
        });
        await team.deliver();
        return refused === undefined ? [] : [`refused (${refused.code}): ${refused.message}`];
      }
      default:
        return [`unknown command "${name}"; type /help`];
    }
  }

  return {
    prompt: () => `lead ${clockTime(team.clock.now())}> `,
    async handle(raw) {
      const [name = '', ...args] = raw.trim().split(/\s+/);
      if (name === '') return [];
      if (name === '/quit' || name === 'quit') return undefined;
      return command(name, args);
    },
  };
}
