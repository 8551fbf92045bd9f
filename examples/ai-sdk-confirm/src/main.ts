// The CLI: runs the three scripted scenarios on simulated time and prints what happens (`--tour`
// runs the same three).
import { runAiSdkConfirm } from './run.js';

const results = await runAiSdkConfirm((line) => console.log(line));
const timers = results.reduce((sum, r) => sum + r.pendingTimers, 0);
console.log(`\n${results.length} scenarios; timers left: ${timers}`);
if (timers !== 0) process.exitCode = 1;
