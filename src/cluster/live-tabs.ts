import type { Canceller } from '../executor/hold-endings.ts';
import { executorSessions, type BrowserSessions } from '../executor/browser-sessions.ts';
import { ScreenControl } from '../handoff/control.ts';
import { JobWatcher } from '../handoff/job-watch.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { HoldRegistry } from '../executor/holds.ts';
import { nodeKey } from './node-auth.ts';
import { nodeOf, type NodeAddress } from './nodes.ts';
import { NodeClient } from './relay.ts';
import type { CancelResult } from '../executor/held-session.ts';

// What one process knows of the tabs the person's pages show: its own held and running tabs (the
// executor's), which screen controls each held tab (one ScreenControl per process: the tab lives
// here, so its control does too), the job watcher that feeds the pages' status messages, and the
// way to the other nodes that hold or run the rest. Built once at start (src/server.ts) and handed
// on Services to the public routes, the internal port that other nodes relay to, REST's cancel and
// MCP's tasks/cancel.

export interface LiveTabs {
  sessions: BrowserSessions;
  control: ScreenControl;
  watcher: JobWatcher;
  client: NodeClient;
  /** Another live node that holds the job's paused tab (`hold`) or runs it (`run`); null when none (or it is this one). */
  elsewhere(jobId: string, what: 'hold' | 'run'): Promise<NodeAddress | null>;
}

export function buildLiveTabs(parts: { db: Kysely<DB>; secretKey: string; holds: HoldRegistry }): LiveTabs {
  const { db, holds } = parts;
  const self = holds.instanceId;
  const client = new NodeClient(nodeKey(parts.secretKey));
  const elsewhere = async (jobId: string, what: 'hold' | 'run') => {
    const node = await nodeOf(db, jobId, what);
    return node && node.id !== self ? node : null;
  };
  const sessions = executorSessions(holds, {
    async cancel(jobId: string, by?: Canceller): Promise<CancelResult | null> {
      const node = await elsewhere(jobId, 'hold');
      if (!node) return null;
      const reply = await client.post(node, `/internal/holds/${jobId}/${by === 'client' ? 'cancel-by-client' : 'cancel'}`);
      const result = (reply?.body as { result?: unknown } | null)?.result;
      return reply?.status === 200 && (result === 'cancelled' || result === 'ended' || result === 'payment_in_flight') ? result : null;
    },
  });
  return {
    sessions,
    control: new ScreenControl((jobId, userInControl) => sessions.setUserInControl(jobId, userInControl)),
    watcher: new JobWatcher(db),
    client,
    elsewhere,
  };
}
