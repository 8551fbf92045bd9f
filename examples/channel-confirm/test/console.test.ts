// `npm run example channel-confirm -- --interactive --console` as a person uses it: the console's
// URL is printed first; a DROP TABLE asked in the chat shows as waiting there, and once alice
// answers 确认 it is gone from the waiting list, settled, and in a verified consent chain.
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleCli, getJson, runExample, until } from '../../../tests/support/console-cli.js';

const dir = new URL('..', import.meta.url).pathname;
let cli: ConsoleCli | undefined;
afterEach(() => cli?.kill());

type Items = { items: Record<string, unknown>[] };

describe('channel-confirm --interactive --console', () => {
  it('prints the console URL, and the console shows the confirmation waiting, then settled and in the ledger', async () => {
    cli = runExample(dir, ['--interactive', '--console']);
    const url = await cli.consoleUrl();
    const run = cli;
    await until(() => run.output().stdout.includes('alice>'), 'the chat prompt');
    const waiting = async (): Promise<number> => (await getJson<Items>(`${url}confirmations`)).items.length;
    expect(await waiting()).toBe(0);

    cli.proc.stdin.write('sql: DROP TABLE orders\n');
    await until(async () => (await waiting()) === 1, 'the confirmation to wait');
    expect((await getJson<Items>(`${url}confirmations`)).items[0]).toMatchObject({
      requester: 'alice',
      actionName: 'data_modify',
    });

    cli.proc.stdin.write('确认\n');
    await until(async () => (await waiting()) === 0, 'the confirmation to settle');
    expect((await getJson<Items>(`${url}confirmations/settled`)).items).toMatchObject([
      { outcome: 'confirmed', decidedBy: 'alice' },
    ]);
    expect((await getJson<Items>(`${url}ledger`)).items).toMatchObject([{ verification: { ok: true } }]);

    cli.proc.stdin.write('/quit\n');
    cli.proc.stdin.end();
    expect(await cli.exited).toBe(0);
    expect(cli.output().stderr).toBe('');
  }, 90_000);
});
