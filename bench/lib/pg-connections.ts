// Which of our processes holds each connection PostgreSQL reports (pg_stat_activity), found through
// the connection's client port: /proc/net/tcp names the socket's inode, /proc/<pid>/fd the process
// holding it. application_name cannot tell them apart: pg-boss names every pool's connections
// `pgboss`, whatever the process. Linux, same user, loopback.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type pg from 'pg';

/** Local port → socket inode, for every TCP socket on this machine. */
function socketInodes(): Map<number, string> {
  const inodes = new Map<number, string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      inodes.set(parseInt(fields[1]!.split(':')[1]!, 16), fields[9]!);
    }
  }
  return inodes;
}

function socketsOf(pid: number): Set<string> {
  const sockets = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[')) sockets.add(target.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // exited
  }
  return sockets;
}

/** How many connections each named process has open to the database `admin` is connected to, now. */
export async function connectionsByProcess(admin: pg.Client, processes: Record<string, number>): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ client_port: number }>('select client_port from pg_stat_activity where datname = current_database() and client_port is not null and pid <> pg_backend_pid()');
  const inodes = socketInodes();
  const owners = Object.entries(processes).map(([name, pid]) => [name, socketsOf(pid)] as const);
  const counts: Record<string, number> = Object.fromEntries(Object.keys(processes).map((name) => [name, 0]));
  for (const { client_port } of rows) {
    const inode = inodes.get(client_port);
    const owner = inode && owners.find(([, sockets]) => sockets.has(inode));
    if (owner) counts[owner[0]]!++;
  }
  return counts;
}
