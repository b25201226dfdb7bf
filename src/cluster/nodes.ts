import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { HEARTBEAT_MS, STALE_SECONDS } from '../executor/hold-timings.ts';
import { liveNodeOfJob } from '../jobs/rows.ts';

// The nodes table: each process that holds browser sessions publishes the internal address other
// nodes reach it at, and says every HEARTBEAT_MS that it is alive. A node silent for STALE_SECONDS
// is presumed gone (the same rule that releases its holds: executor/holds.ts). A node that stops
// cleanly removes its row.

export type NodeRole = 'serve' | 'worker';

export class NodeRecord {
  readonly #db: Kysely<DB>;
  readonly #log: Logger;
  readonly id: string;
  readonly #timer: NodeJS.Timeout;

  private constructor(db: Kysely<DB>, log: Logger, id: string) {
    this.#db = db;
    this.#log = log;
    this.id = id;
    this.#timer = setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Publishes this node (its id is the executor's instance id, as jobs name it in hold_instance / run_instance). */
  static async publish(db: Kysely<DB>, log: Logger, node: { id: string; internalUrl: string; role: NodeRole }): Promise<NodeRecord> {
    await db.insertInto('nodes').values({ id: node.id, internal_url: node.internalUrl, role: node.role }).execute();
    // Rows of nodes long gone (killed, never removed) are of no use to anyone.
    await db.deleteFrom('nodes').where('heartbeat_at', '<', sql<Date>`now() - interval '1 day'`).execute().catch(() => {});
    return new NodeRecord(db, log, node.id);
  }

  /** Draining (SIGTERM): still serving its holds, taking no new work. */
  async setDraining(): Promise<void> {
    await this.#db.updateTable('nodes').set({ draining: true, heartbeat_at: sql<Date>`now()` }).where('id', '=', this.id).execute();
  }

  async remove(): Promise<void> {
    clearInterval(this.#timer);
    await this.#db.deleteFrom('nodes').where('id', '=', this.id).execute();
  }

  async #beat(): Promise<void> {
    try {
      await this.#db.updateTable('nodes').set({ heartbeat_at: sql<Date>`now()` }).where('id', '=', this.id).execute();
    } catch (error) {
      this.#log.warn({ err: { message: (error as Error).message } }, 'node heartbeat failed');
    }
  }
}

/** Where another live node that holds (or runs) a job can be reached: its internal address. */
export interface NodeAddress {
  id: string;
  internalUrl: string;
}

/** The live node holding the job's paused tab (`hold`) or running it (`run`), or null. */
export async function nodeOf(db: Kysely<DB>, jobId: string, what: 'hold' | 'run'): Promise<NodeAddress | null> {
  const row = await liveNodeOfJob(db, jobId, what, STALE_SECONDS);
  return row ? { id: row.id, internalUrl: row.internal_url } : null;
}
