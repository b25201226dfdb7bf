import type { Socket as NetSocket } from 'node:net';
import type { Page } from 'playwright-core';
import { liveViewOf } from '../browser/live-view.ts';
import { handoffOutcome, statusWords } from '../handoff/describe.ts';
import { TAKEN_OVER } from '../handoff/control.ts';
import { confirmationMayFollow } from '../handoff/handoff.ts';
import { pipeSockets, type HolderSocket, type PipeSocket, type Upstream } from '../cluster/relay.ts';
import { TERMINAL_STATUSES } from '../jobs/transition.ts';
import type { Job } from '../jobs/types.ts';
import type { LiveViewGrant } from './live-view-routes.ts';
import { CLOSE_RECONNECT, serveLiveView, type LiveViewConnection, type Socket } from './live-view-socket.ts';
import type { LiveTabs } from '../cluster/live-tabs.ts';

// What a live-view socket is granted, once its surface has let the viewer in: the held tab in
// control (the person paying), a running tab to watch (`sessionUrl`), the same relayed from the node
// that has the tab (src/cluster), or — with no node to show it — the job's status until it ends.
// The node holding a tab serves its grant the same way whether the socket came straight from the
// person or was relayed by another node.

/** After the held tab closes, how long to wait for the job's final status before closing the view. */
const FINAL_STATUS_WAIT_MS = 5_000;
/** How often a watcher checks that it still shows the tab the run is driving (it moves on fallback). */
const RUNNING_TAB_CHECK_MS = 500;
/** How often a page with no node to show its tab checks whether one can again (it reconnects then). */
const NODE_CHECK_MS = 3_000;
/** A relayed handshake whose upgrade has not completed by then lets go of the holder's side. */
const UPGRADE_WAIT_MS = 10_000;

/** The status message a live view gets about its job (on its socket, or from `/handoff/<token>/status`). */
export function statusMessage(job: Job): Record<string, unknown> {
  const message: Record<string, unknown> = { t: 'status', status: job.status, words: statusWords(job) };
  if (job.status === 'completed' && job.confirmationCode) message.confirmationCode = job.confirmationCode;
  if (job.status === 'error') message.message = handoffOutcome(job).message;
  if (confirmationMayFollow(job)) message.confirmationMayFollow = true;
  return message;
}

/** The person in control of a held tab of this process (the claim on it is let go when `client` closes). */
export async function heldTabGrant(tabs: LiveTabs, job: Job, page: Page, screen: string | null, client: NetSocket): Promise<LiveViewGrant | { refused: 410; message: string }> {
  const { control, watcher } = tabs;
  const { jobId } = job;
  if (control.wasTakenOver(page, screen)) {
    return {
      view: null,
      mode: 'control',
      opened(connection: LiveViewConnection) {
        connection.end(TAKEN_OVER);
        return () => {};
      },
    };
  }
  const claim = control.claim(jobId, page, screen);
  // Let go when the socket closes, also when the handshake never becomes a connection (the
  // upgrade refused, its client gone).
  if (client.destroyed) claim.release();
  else client.once('close', claim.release);
  if (!(await control.handOver(claim))) return { refused: 410, message: 'gone' };
  // And at the latest 10 s from now if the upgrade has not completed by then.
  const unclaimed = setTimeout(claim.release, UPGRADE_WAIT_MS);
  unclaimed.unref();
  let finalWait: NodeJS.Timeout | undefined;
  return {
    view: liveViewOf(page),
    mode: 'control',
    opened(connection: LiveViewConnection) {
      clearTimeout(unclaimed);
      switch (control.open(claim, connection)) {
        case 'taken_over':
          connection.end(TAKEN_OVER);
          return claim.release;
        case 'retry':
          // The upgrade took so long that the claim was let go (the guard covers the tab
          // again): this connection must not relay input unclaimed.
          connection.end('retry', CLOSE_RECONNECT);
          return () => {};
      }
      connection.notify(statusMessage(job));
      const stop = watcher.watchJob(jobId, (next) => {
        connection.notify(statusMessage(next));
        if (TERMINAL_STATUSES.includes(next.status) && next.status !== 'paused_payment') connection.end(next.status);
      });
      return () => {
        stop();
        clearTimeout(finalWait);
        claim.release();
      };
    },
    onViewEnded(connection: LiveViewConnection) {
      // The held tab closed (the provider confirmed, the hold ended, the booking was cancelled):
      // the job's final status follows in a moment; the watcher above sends it and closes.
      finalWait = setTimeout(() => connection.end('page_closed'), FINAL_STATUS_WAIT_MS);
      finalWait.unref();
    },
  };
}

/**
 * A held booking no node can show right now (its holder died, or cannot be reached): the page
 * stays connected and is told the job's status as it changes — the hold_lost its holder's silence
 * leads to, in words — and reconnects once a live node holds the tab again.
 */
export function heldNowhereGrant(tabs: LiveTabs, job: Job): LiveViewGrant {
  return {
    view: null,
    mode: 'control',
    opened(connection: LiveViewConnection) {
      connection.notify(statusMessage(job));
      const stop = tabs.watcher.watchJob(job.jobId, (next) => {
        connection.notify(statusMessage(next));
        if (TERMINAL_STATUSES.includes(next.status) && next.status !== 'paused_payment') connection.end(next.status);
      });
      const retry = setInterval(() => {
        void tabs.elsewhere(job.jobId, 'hold').then((node) => {
          if (node || tabs.sessions.heldPage(job.jobId)) connection.end('retry', CLOSE_RECONNECT);
        }, () => {});
      }, NODE_CHECK_MS);
      retry.unref();
      return () => {
        stop();
        clearInterval(retry);
      };
    },
  };
}

/** A running job's tab to watch, read-only (`page` null: the run has not opened one yet, or runs on no node this one can reach). */
export function runningTabGrant(tabs: LiveTabs, jobId: string, page: Page | null): LiveViewGrant {
  const { watcher, sessions } = tabs;
  return {
    view: page ? liveViewOf(page) : null,
    mode: 'watch',
    opened(connection: LiveViewConnection) {
      const stop = watcher.watchJob(jobId, (job) => {
        if (job.status === 'running') return;
        connection.notify(statusMessage(job));
        connection.end(job.status);
      });
      // The run moves to another tab when it falls back to another provider: reconnect to it.
      // (No tab any more means the run paused or ended: onViewEnded below has that in hand.)
      const moved = setInterval(() => {
        const now = sessions.runningPage(jobId);
        if (now !== null && now !== page) connection.end('moved', CLOSE_RECONNECT);
      }, RUNNING_TAB_CHECK_MS);
      moved.unref();
      // Nothing to show here: the run may be (or come to be) on another node.
      const elsewhere = page ? null : setInterval(() => {
        void tabs.elsewhere(jobId, 'run').then((node) => {
          if (node) connection.end('moved', CLOSE_RECONNECT);
        }, () => {});
      }, NODE_CHECK_MS);
      elsewhere?.unref();
      return () => {
        stop();
        clearInterval(moved);
        if (elsewhere) clearInterval(elsewhere);
      };
    },
    onViewEnded(connection: LiveViewConnection, reason) {
      if (reason !== 'held') return connection.end('moved', CLOSE_RECONNECT);
      // Paused: frames stopped at once; the watcher above sends the status in a moment and closes.
      const finalWait = setTimeout(() => connection.end('paused'), FINAL_STATUS_WAIT_MS);
      finalWait.unref();
    },
  };
}

/**
 * The viewer's socket piped to the node that has the tab (`upstream`, already open). When that
 * node's side is cut rather than closed, the viewer's socket carries on as `whenCut` grants it.
 */
export function relayGrant(upstream: Extract<Upstream, { kind: 'open' }>, client: NetSocket, mode: 'watch' | 'control', whenCut: () => LiveViewGrant): LiveViewGrant {
  const holder: HolderSocket = upstream.socket;
  // The person's handshake may never become a connection: the holder's side is let go then.
  const dropHolder = () => holder.close(1000);
  client.once('close', dropHolder);
  const unused = setTimeout(dropHolder, UPGRADE_WAIT_MS);
  unused.unref();
  return {
    view: null,
    mode,
    relay(socket: PipeSocket & Socket) {
      clearTimeout(unused);
      client.off('close', dropHolder);
      pipeSockets(socket, holder, () => {
        const grant = whenCut();
        const undo: { release?: () => void } = {};
        const connection = serveLiveView(socket, grant.view, grant.mode, { onViewEnded: grant.onViewEnded, onClose: () => undo.release?.() });
        undo.release = grant.opened?.(connection);
        if (connection.closed) undo.release?.();
      });
    },
  };
}
