// App processes: the endpoint in a child node process (fixtures/app.ts), so a test can kill it.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const APP = fileURLToPath(new URL('./fixtures/app.ts', import.meta.url));

export interface App {
  readonly url: string;
  readonly pid: number;
  /** Resolves when the process has exited (killed, or crashed on purpose). */
  readonly exited: Promise<number | null>;
  kill(): Promise<void>;
}

/** Starts fixtures/app.ts on `port` with `env`, and waits until it listens. */
export async function startApp(port: number, env: Record<string, string> = {}): Promise<App> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', APP], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('listening')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    exited.then((code) =>
      reject(new Error(`app on port ${port} exited with ${code} before listening:\n${output}`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
