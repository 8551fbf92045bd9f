// Runs an example's CLI with `--console` as a person does: the process on its own, its output
// collected, the console it prints read through its JSON pages while the process runs.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';

export interface ConsoleCli {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** The console URL the process printed (`console: http://…/`), once it has. */
  consoleUrl(): Promise<string>;
  /** Kills the process if it still runs. */
  kill(): void;
}

/** Starts `tsx src/main.ts …args` in an example's directory. */
export function runExample(dir: string, args: readonly string[]): ConsoleCli {
  const tsx = join(dir, '..', '..', 'node_modules', '.bin', 'tsx');
  const proc = spawn(tsx, ['src/main.ts', ...args], { cwd: dir });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const pattern = /console: (http:\/\/127\.0\.0\.1:\d+\/)/;
  return {
    proc,
    exited,
    output: () => ({ stdout, stderr }),
    async consoleUrl() {
      await until(() => pattern.test(stdout), 'the console URL on stdout');
      return pattern.exec(stdout)?.[1] as string; // matched just above
    },
    kill() {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

/** GETs the JSON variant of a console page. */
export function getJson<T>(url: string): Promise<T> {
  return new Promise((resolve, reject) => {
    request(`${url}?format=json`, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(body) as T));
    })
      .on('error', reject)
      .end();
  });
}

/** Polls until `check` holds, failing after `timeoutMs` with what it waited for. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
