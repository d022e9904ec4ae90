import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds used so far by this process and each of its descendants (with the ones they reaped) (PostgreSQL, the Temporal dev
 * server), summed by command name, from /proc (Linux). Taken before and after a phase, the difference
 * shows which of them the phase kept busy. Empty where /proc is not there.
 */
export function cpuByCommand(): Record<string, number> {
  const ticks = 100; // USER_HZ on Linux
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return {};
  }
  const procs = new Map<number, { ppid: number; comm: string; cpu: number }>();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // After the command: state, ppid, ... utime is field 14 of the line, stime 15, and cutime,
      // cstime (16, 17) the children it has reaped: PostgreSQL's ended backends count there.
      const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      procs.set(Number(e), { ppid: Number(fields[1]), comm, cpu: (utime + stime + cutime + cstime) / ticks });
    } catch {
      // The process ended while being read.
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 50; hops++) {
      if (p === process.pid) return true;
      p = procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const out: Record<string, number> = {};
  for (const [pid, p] of procs) if (mine(pid)) out[p.comm] = (out[p.comm] ?? 0) + p.cpu;
  return out;
}

/** CPU seconds per command used between two readings of cpuByCommand, rounded to 0.1 s. */
export function cpuSince(before: Record<string, number>): Record<string, number> {
  const now = cpuByCommand();
  const out: Record<string, number> = {};
  for (const [comm, s] of Object.entries(now)) {
    const used = s - (before[comm] ?? 0);
    if (used >= 0.1) out[comm] = Math.round(used * 10) / 10;
  }
  return out;
}

/** CPU seconds (user + system) one process has used so far; 0 once it is gone. */
export function cpuOfProcess(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: utime and stime are fields 14 and 15 of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
