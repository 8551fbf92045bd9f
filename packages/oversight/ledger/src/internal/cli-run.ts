// The verify command, with its file system and output injected (tested without a process).
import { verifyLedger, type VerifyOptions } from '../verify.js';

export interface CliIo {
  read(path: string): string;
  out(line: string): void;
  err(line: string): void;
}

const USAGE =
  'usage: parley-ledger verify <file.jsonl> [--key keyId=publicKeyHex]... [--head seq:hash] [--anchor seq:hash]';

/** Runs `verify`; returns the exit code (0 holds, 1 tampered, 2 usage or unreadable file). */
export function runCli(args: readonly string[], io: CliIo): number {
  const [command, file, ...rest] = args;
  if (command !== 'verify' || file === undefined) return usage(io);
  const publicKeys: Record<string, string> = {};
  let head: VerifyOptions['head'];
  let anchor: VerifyOptions['anchor'];
  for (let i = 0; i < rest.length; i += 2) {
    const value = rest[i + 1];
    const match = value === undefined ? null : /^([^=]+)=([0-9a-f]{64})$|^(\d+):([0-9a-f]{64})$/.exec(value);
    if (rest[i] === '--key' && match?.[1] !== undefined) publicKeys[match[1]] = match[2] as string;
    else if (rest[i] === '--head' && match?.[3] !== undefined)
      head = { seq: Number(match[3]), hash: match[4] as string };
    // after a prune: the last removed entry, which the file's first entry links to
    else if (rest[i] === '--anchor' && match?.[3] !== undefined)
      anchor = { seq: Number(match[3]), hash: match[4] as string };
    else return usage(io);
  }
  let text: string;
  try {
    text = io.read(file);
  } catch (error) {
    io.err(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const options: VerifyOptions = {
    ...(Object.keys(publicKeys).length > 0 ? { publicKeys } : {}),
    ...(head === undefined ? {} : { head }),
    ...(anchor === undefined ? {} : { anchor }),
  };
  const result = verifyLedger(text, options);
  if (result.ok) {
    io.out(
      `ok: ${result.entries} entries${result.head === undefined ? '' : `, head ${result.head.seq} ${result.head.hash}`}`,
    );
    return 0;
  }
  io.out(
    `${result.code} at line ${result.line}${result.seq === undefined ? '' : ` (entry ${result.seq})`}: ${result.message}`,
  );
  return 1;
}

function usage(io: CliIo): number {
  io.err(USAGE);
  return 2;
}
