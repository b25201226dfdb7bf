// What a process and everything it started costs, read from /proc (Linux): memory (RSS and PSS,
// summed over the tree) and CPU time. Shared by the booking benchmarks (bench/executor.ts: the
// browser tree below the benchmark itself; bench/scale.ts: each worker process with its Chromium).
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeUsage {
  rssKb: number;
  pssKb: number;
  /** User and system CPU of every process in the tree, with its children that already exited and were reaped (cutime, cstime). */
  cpuMs: number;
  processes: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on). */
const TICK_MS = 10;

/** /proc/<pid>/stat fields after the command name: state is [0], ppid [1], utime [11] … cstime [14]. */
function statOf(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // exited meanwhile
  }
}

/** The pids of `root`'s descendants (and `root` itself when asked), as the process table is now. */
export function treePids(root: number, options: { includeRoot: boolean }): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statOf(entry);
    if (fields) parent.set(Number(entry), Number(fields[1]));
  }
  const mine = new Set<number>(options.includeRoot ? [root] : []);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!mine.has(pid) && (ppid === root || mine.has(ppid))) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return [...mine];
}

export function treeUsage(root: number, options: { includeRoot: boolean }): TreeUsage {
  const usage: TreeUsage = { rssKb: 0, pssKb: 0, cpuMs: 0, processes: 0 };
  for (const pid of treePids(root, options)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      usage.rssKb += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      usage.pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      const fields = statOf(String(pid));
      if (fields) usage.cpuMs += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * TICK_MS;
      usage.processes++;
    } catch {
      // exited meanwhile
    }
  }
  return usage;
}

export const mb = (kb: number) => (kb / 1024).toFixed(1);
