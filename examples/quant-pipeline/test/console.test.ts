// `npm run example quant-pipeline -- --console` as a person uses it: the console's URL is printed
// first; while the chairman's approval waits, the console shows the run with its live graph and
// the approval waiting; after "approve" the run ends and the process exits.
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleCli, getJson, runExample, until } from '../../../tests/support/console-cli.js';

const dir = new URL('..', import.meta.url).pathname;
let cli: ConsoleCli | undefined;
afterEach(() => cli?.kill());

describe('quant-pipeline --console', () => {
  it('prints the console URL and shows the run waiting for the chairman’s approval, with its graph', async () => {
    cli = runExample(dir, ['--console']);
    const url = await cli.consoleUrl();
    const run = cli;
    await until(() => run.output().stdout.includes('approve | reject'), 'the chairman’s question');

    const runs = await getJson<{ items: { runId: string; status: string }[] }>(`${url}runs`);
    expect(runs.items.map((r) => r.status)).toEqual(['running']);
    const detail = await getJson<{
      approvalsWaiting: string[];
      mermaid?: string;
      nodes: { status: string }[];
    }>(`${url}runs/${encodeURIComponent(runs.items[0]?.runId ?? '')}`);
    expect(detail.approvalsWaiting).toHaveLength(1);
    expect(detail.mermaid).toContain('waiting');
    expect(detail.nodes.some((n) => n.status === 'done')).toBe(true);

    cli.proc.stdin.write('approve\n');
    cli.proc.stdin.end();
    expect(await cli.exited).toBe(0);
    expect(cli.output().stdout).toContain('final status: approved');
    expect(cli.output().stderr).toBe('');
  }, 120_000);
});
