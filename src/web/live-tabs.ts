import type { Canceller } from '../executor/hold-endings.ts';
import { executorSessions, type BrowserSessions } from '../executor/browser-sessions.ts';
import { ScreenControl } from '../handoff/control.ts';
import { JobWatcher } from '../handoff/job-watch.ts';
import { nodeKey } from '../cluster/node-auth.ts';
import { nodeOf, type NodeAddress } from '../cluster/nodes.ts';
import { NodeClient } from '../cluster/relay.ts';
import type { CancelResult } from '../executor/held-session.ts';
import type { Services } from '../services.ts';

// What one process knows of the tabs the person's pages show: its own held and running tabs (the
// executor's), which screen controls each held tab (one ScreenControl per process: the tab lives
// here, so its control does too), the job watcher that feeds the pages' status messages, and the
// way to the other nodes that hold or run the rest (src/cluster). Built once per service, shared
// by the public routes and the internal port that other nodes relay to.

export interface LiveTabs {
  sessions: BrowserSessions;
  control: ScreenControl;
  watcher: JobWatcher;
  client: NodeClient;
  /** Another live node that holds the job's paused tab (`hold`) or runs it (`run`); null when none (or it is this one). */
  elsewhere(jobId: string, what: 'hold' | 'run'): Promise<NodeAddress | null>;
}

const built = new WeakMap<Services, LiveTabs>();

export function liveTabsOf(services: Services): LiveTabs {
  let tabs = built.get(services);
  if (tabs) return tabs;
  const self = services.executor.holds.instanceId;
  const client = new NodeClient(nodeKey(services.secretKey));
  const elsewhere = async (jobId: string, what: 'hold' | 'run') => {
    const node = await nodeOf(services.db, jobId, what);
    return node && node.id !== self ? node : null;
  };
  const sessions = executorSessions(services.executor.holds, {
    async cancel(jobId: string, by?: Canceller): Promise<CancelResult | null> {
      const node = await elsewhere(jobId, 'hold');
      if (!node) return null;
      const reply = await client.post(node, `/internal/holds/${jobId}/${by === 'client' ? 'cancel-by-client' : 'cancel'}`);
      const result = (reply?.body as { result?: unknown } | null)?.result;
      return reply?.status === 200 && (result === 'cancelled' || result === 'ended' || result === 'payment_in_flight') ? result : null;
    },
  });
  tabs = {
    sessions,
    control: new ScreenControl((jobId, userInControl) => sessions.setUserInControl(jobId, userInControl)),
    watcher: new JobWatcher(services.db),
    client,
    elsewhere,
  };
  built.set(services, tabs);
  return tabs;
}
