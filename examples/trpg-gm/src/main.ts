// The CLI. By default it plays the seven scripted scenarios on one campaign and prints the
// transcript. With `--interactive` you are the players: type `aria: …` or `bram: …` (or just text,
// for the active player) and an improvising scripted GM answers through the same host; commands:
// /type <scene|action|rules|free_chat>, /set <key> <json>, /combat, /peace, /rollback <turn_id>,
// /undo, /state, /log, /quit. Time is simulated.
import { createInterface } from 'node:readline/promises';
import type { Proposal } from '@parley/conflict';
import { createFakeClock, createScriptedModel } from '@parley/testing';
import type { GmRequest } from './context.js';
import { improvise } from './improviser.js';
import { describeState, runTrpgSession } from './run.js';
import { createGmSession } from './session.js';
import { createTranscript, describeTurn } from './transcript.js';

const START = Date.UTC(2026, 0, 14, 19, 0, 0);
const clock = createFakeClock({ now: START });

if (process.argv.includes('--interactive')) {
  await interactive();
} else {
  const result = await runTrpgSession({ clock, output: (line) => console.log(line) });
  result.model.assertAllUsed();
  console.log(`\nturn log: ${result.turnLog.map((t) => `${t.turn}:${t.turn_id}`).join(' ')}`);
  console.log(`checkpoints: ${result.campaign.checkpoints.map((c) => c.turn_id).join(' ')}`);
  console.log(`rollback_pending: ${JSON.stringify(result.campaign.rollback_pending)}`);
  clock.assertNoPendingTimers();
}

async function interactive(): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const transcript = createTranscript(clock, (line) => console.log(line));
  let n = 0;
  const model = createScriptedModel<Proposal, GmRequest>({
    clock,
    name: 'improvising GM',
    respond: improvise,
  });
  const session = await createGmSession({ clock, model, generateTurnId: () => `turn_${++n}` });
  const names: Record<string, string> = { aria: 'pc_aria', bram: 'pc_bram' };
  const who = (id: string): string => session.state.characters[id]?.name ?? id;
  let actor = 'pc_aria';
  console.log(
    `You play Aria and Bram in "${session.campaign.title}". Type "aria: I walk to the market", or /help.`,
  );
  try {
    for (;;) {
      const line = (await rl.question(`${who(actor)} > `).catch(() => '/quit')).trim();
      clock.advance(30_000);
      const [command = '', ...rest] = line.split(/\s+/);
      const arg = rest.join(' ');
      if (line === '') continue;
      if (command === '/quit') break;
      if (command === '/help')
        console.log(
          'aria: … | bram: … | /type <t> | /set <key> <json> | /combat | /peace | /rollback <turn_id> | /undo | /state | /log | /quit',
        );
      else if (command === '/state') console.log(describeState(session));
      else if (command === '/log')
        for (const t of session.turnLog)
          console.log(`${t.turn_id} (turn ${t.turn}) ${who(t.actor_id)}: ${t.user_input}`);
      else if (command === '/type') {
        const result = await session.selectDialogType(arg);
        console.log(result.ok ? `dialog type "${arg}" from the next turn` : `refused (${result.code})`);
      } else if (command === '/set') {
        const [key = '', ...value] = rest;
        let parsed: unknown = value.join(' ');
        try {
          parsed = JSON.parse(value.join(' '));
        } catch {}
        const result = await session.changeSetting(key, parsed);
        console.log(result.ok ? `${key} saved for the next turn` : `refused (${result.code})`);
      } else if (command === '/combat' || command === '/peace') {
        const result = session.hostEvent(command === '/combat' ? 'start_combat' : 'end_combat');
        console.log(result.ok ? `phase: ${result.to}` : `refused (${result.code})`);
      } else if (command === '/rollback') {
        const result = await session.rollback(arg);
        console.log(
          result.ok
            ? `rolled back to ${arg}; /undo until your next command`
            : `refused (${result.code}): ${result.reason}`,
        );
      } else if (command === '/undo') {
        const result = await session.undo();
        console.log(
          result.ok
            ? `undone: back to ${result.restored_turn_id}`
            : `refused (${result.code}): ${result.reason}`,
        );
      } else {
        const named = /^(\w+):\s*(.*)$/.exec(line);
        const id = named?.[1] === undefined ? undefined : names[named[1].toLowerCase()];
        if (id !== undefined) actor = id;
        const result = await session.turn({
          actor_id: actor,
          user_input: id === undefined ? line : (named?.[2] ?? ''),
        });
        if (result.ok) transcript.log(describeTurn(result, who).join('\n'));
        else console.log(`refused (${result.code}): ${result.reason}`);
      }
    }
  } finally {
    rl.close();
    await session.close();
  }
}
