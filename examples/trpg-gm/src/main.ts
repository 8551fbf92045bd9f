// The CLI. By default it plays the eight scripted scenarios on one campaign and prints the
// transcript. With `--interactive` you are the players: type `aria: …` or `bram: …` (or plain text
// for the active player) and an improvising scripted GM answers through the same host; /help lists
// the commands (dialog type, settings, combat, rollback, undo). Time is simulated.
import { createInterface } from 'node:readline';
import type { Proposal } from '@parley/conflict';
import { createFakeClock, createScriptedModel, createTranscript } from '@parley/testing';
import { createPlayerConsole } from './commands.js';
import type { GmRequest } from './context.js';
import { improvise } from './improviser.js';
import { runTrpgSession } from './run.js';
import { createGmSession } from './session.js';

const clock = createFakeClock({ now: Date.UTC(2026, 0, 14, 19, 0, 0) });

if (process.argv.includes('--interactive')) {
  await interactive();
} else {
  // The tour (`--tour`, what `npm run demo` passes) sums up three scenarios in one line each (conflict retries, which scenario 8 shows too, and a settings change).
  const quiet = process.argv.includes('--tour')
    ? ['hp-claim-retry', 'persistent-contradiction', 'settings-change']
    : [];
  const result = await runTrpgSession({ clock, output: (line) => console.log(line), quiet });
  result.model.assertAllUsed();
  console.log(`\nturn log: ${result.turnLog.map((t) => `${t.turn}:${t.turn_id}`).join(' ')}`);
  console.log(`checkpoints: ${result.campaign.checkpoints.map((c) => c.turn_id).join(' ')}`);
  console.log(`rollback_pending: ${JSON.stringify(result.campaign.rollback_pending)}`);
}
clock.assertNoPendingTimers();

async function interactive(): Promise<void> {
  let n = 0;
  const model = createScriptedModel<Proposal, GmRequest>({
    clock,
    name: 'improvising GM',
    respond: improvise,
  });
  const session = await createGmSession({ clock, model, generateTurnId: () => `turn_${++n}` });
  const players = createPlayerConsole(session);
  const transcript = createTranscript({ clock, output: (line) => console.log(line) });
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const prompt = (): void => {
    rl.setPrompt(`${session.state.characters[players.actor]?.name ?? players.actor} > `);
    rl.prompt();
  };
  console.log(
    `You play Aria and Bram in "${session.campaign.title}". Try "aria: I walk to the market", or /help.`,
  );
  prompt();
  try {
    // Lines typed (or piped) while a turn runs are buffered by the async iterator, not lost.
    for await (const line of rl) {
      clock.advance(30_000);
      const out = await players.handle(line);
      if (out === undefined) break;
      if (out.length > 0) transcript.log(out.join('\n'));
      prompt();
    }
  } finally {
    rl.close();
    await session.close();
  }
}
