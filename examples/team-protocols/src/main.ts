// The CLI. By default it runs the five scripted scenarios on simulated time, prints the transcript
// and the final `/team` view, and exits. `--interactive`: you play the lead and type commands
// (`/help`); the teammates stay scripted and time is simulated.
import { createInterface } from 'node:readline/promises';
import { createSequentialIds } from '@parley/core';
import { createFakeClock } from '@parley/testing';
import { createLeadConsole, HELP, TICK_MS } from './console.js';
import { runTeamProtocols } from './run.js';
import { createTeam } from './team.js';
import { createTranscript } from '@parley/testing';

async function interactive(): Promise<void> {
  // Simulated time starting now: `wait 30` shows an expiry without waiting 30 real seconds.
  const clock = createFakeClock({ now: Math.floor(Date.now() / 1000) * 1000 });
  const transcript = createTranscript({ clock, output: (line) => console.log(line) });
  const team = createTeam({ clock, generateId: createSequentialIds('req_'), transcript });
  const lead = createLeadConsole(team);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  try {
    console.log(`${HELP}\n`);
    team.startWork('bob');
    await team.advance(TICK_MS);
    rl.setPrompt(lead.prompt());
    rl.prompt();
    // The async iterator buffers lines, so piped input works as well as typing; it ends on Ctrl-D.
    for await (const line of rl) {
      const out = await lead.handle(line);
      if (out === undefined) break;
      for (const text of out) console.log(text);
      rl.setPrompt(lead.prompt());
      rl.prompt();
    }
  } finally {
    rl.close();
    team.close();
  }
}

if (process.argv.includes('--interactive')) {
  await interactive();
} else {
  const result = await runTeamProtocols({ output: (line) => console.log(line) });
  console.log(`\n${result.lines.length} transcript lines; timers left: ${result.pendingTimers}`);
  if (result.pendingTimers !== 0) process.exitCode = 1;
}
