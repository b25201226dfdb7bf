import { parseInput, parseScreen, type Controlling, type LiveFrame, type LiveView, type ViewEnd, type ViewerScreen, type Watching } from '../browser/live-view.ts';

// One viewer's WebSocket: frames out (binary), screen reports and — in control — input in (JSON text).
//
// Wire format, server → client: a binary message is a frame, `u16 width, u16 height` (CSS pixels of
// the viewport it shows, big-endian) followed by the JPEG; a text message is JSON, `{t:'status', …}`
// or `{t:'ended', reason}` just before the server closes. Client → server: JSON text,
// `{t:'screen', width, height, pixelRatio}` first, then (in control only) `{t:'mouse'|'wheel'|'key'|'text', …}`.
// Input messages are parsed and handed to the tab; they are never logged, stored or echoed.

/** Bytes a viewer may have queued before frames are skipped for it (a slow phone link). */
const MAX_BUFFERED = 512 * 1024;
/** Input messages a viewer may send per second; beyond that they are dropped (a stuck key, a script). */
const INPUT_PER_SECOND = 120;
/**
 * A viewer's screen reports are applied at most this often; the last one of a burst wins. Each one
 * may re-lay out the held tab (in control) and restart the screencast for every viewer (watchers
 * too), so a flood of them would make the person's page jump and flicker. A real client sends one
 * on connect and one per resize (itself debounced by 150 ms).
 */
const SCREEN_INTERVAL_MS = 500;
/** Close codes (application range) the client shows a message for. */
export const CLOSE_ENDED = 4000;
export const CLOSE_RECONNECT = 4001;
export const CLOSE_PROTOCOL = 4002;

/** The part of a `ws` WebSocket this module uses (the package ships no types). */
export interface Socket {
  readonly OPEN: number;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Buffer, options?: { binary: boolean }, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): void;
  on(event: 'close' | 'error', listener: () => void): void;
}

export interface LiveViewConnection {
  /** Sends a JSON message to the viewer (status updates of the job behind the view). */
  notify(message: Record<string, unknown>): void;
  /** Tells the viewer why, then closes (CLOSE_ENDED: for good; CLOSE_RECONNECT: connect again). */
  end(reason: string, code?: number): void;
  readonly closed: boolean;
}

/** `view` null: nothing to show yet (a run before its first tab); the caller ends the connection when there is. */
export function serveLiveView(
  socket: Socket,
  view: LiveView | null,
  mode: 'watch' | 'control',
  hooks: {
    onClose?: () => void;
    /** The tab is gone, or no longer watchable; by default the viewer is told and the socket closed at once. */
    onViewEnded?: (connection: LiveViewConnection, reason: ViewEnd) => void;
  } = {},
): LiveViewConnection {
  let attached: Watching | Controlling | null = null;
  let windowStart = 0;
  let windowCount = 0;
  let closed = false;
  let screenAppliedAt = 0;
  let pendingScreen: ViewerScreen | null = null;
  let screenTimer: NodeJS.Timeout | null = null;

  const applyScreen = () => {
    screenTimer = null;
    if (closed || !attached || !pendingScreen) return;
    attached.resize(pendingScreen);
    pendingScreen = null;
    screenAppliedAt = Date.now();
  };

  const send = (message: Record<string, unknown>) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const end = (reason: string, code = CLOSE_ENDED) => {
    if (closed) return;
    if (code === CLOSE_ENDED) send({ t: 'ended', reason });
    socket.close(code, reason.slice(0, 100));
    cleanup();
  };
  const cleanup = () => {
    if (closed) return;
    closed = true;
    if (screenTimer) clearTimeout(screenTimer);
    attached?.close();
    attached = null;
    hooks.onClose?.();
  };

  const viewer = {
    frame(frame: LiveFrame): Promise<void> {
      if (socket.readyState !== socket.OPEN || socket.bufferedAmount > MAX_BUFFERED) return Promise.resolve();
      const header = Buffer.alloc(4);
      header.writeUInt16BE(Math.min(frame.width, 0xffff), 0);
      header.writeUInt16BE(Math.min(frame.height, 0xffff), 2);
      return new Promise<void>((resolve) => socket.send(Buffer.concat([header, frame.jpeg]), { binary: true }, () => resolve()));
    },
    ended: (reason: ViewEnd) => (hooks.onViewEnded ? hooks.onViewEnded(connection, reason) : end(reason)),
  };

  socket.on('message', (data, isBinary) => {
    if (closed) return;
    let message: unknown;
    try {
      message = isBinary ? null : JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : '');
    } catch {
      message = null;
    }
    const screen = parseScreen(message);
    if (screen) {
      if (!view) return;
      if (!attached) {
        attached = mode === 'control' ? view.control(viewer, screen) : view.watch(viewer, screen);
        screenAppliedAt = Date.now();
        return;
      }
      pendingScreen = screen;
      if (screenTimer) return;
      screenTimer = setTimeout(applyScreen, Math.max(0, screenAppliedAt + SCREEN_INTERVAL_MS - Date.now()));
      screenTimer.unref();
      return;
    }
    // A watcher's input goes nowhere: there is no path from it to the tab.
    if (mode !== 'control' || !attached || !('input' in attached)) return;
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      windowCount = 0;
    }
    if (++windowCount > INPUT_PER_SECOND) return;
    const input = parseInput(message);
    if (!input) return;
    void attached.input(input);
  });
  socket.on('close', cleanup);
  socket.on('error', cleanup);

  const connection: LiveViewConnection = {
    notify: send,
    end,
    get closed() {
      return closed;
    },
  };
  return connection;
}
