import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

// PGlite admits one process per data directory; a second one opening it corrupts it. The owner
// writes its pid into a lock file created exclusively; a lock whose pid is gone is stale.
export interface DataDirLock {
  release(): void;
}

export function socketPathFor(dir: string): string {
  return join(dir, '.s.PGSQL.5432');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(dir: string): DataDirLock | null {
  const path = join(dir, 'concierge.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      rmSync(socketPathFor(dir), { force: true });
      return {
        release() {
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return null;
      rmSync(path, { force: true });
      rmSync(socketPathFor(dir), { force: true });
    }
  }
  return null;
}
