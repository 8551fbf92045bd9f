// CPU time of another process, for the scale-out suites: what a replica or a server has used, read
// from /proc (Linux), so the driver can say which process was busy.
import { readFileSync } from 'node:fs';

/** CPU seconds a process has used (user + system), from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}
