import type { CDPSession, Page } from 'playwright-core';
import { timeLimit } from './time-limit.ts';

// The live view of a browser tab: JPEG frames from the CDP screencast, fanned out to every viewer,
// and — for a viewer in control — mouse and keyboard input relayed back as CDP input events.
//
// What a person types here may be a card security code. It lives only in the `LiveInput` object on
// its way to `Input.dispatchKeyEvent` / `Input.insertText`: nothing in this module logs, stores,
// counts or echoes input, and a failed dispatch is reported without its contents.

/** A frame as the screencast produced it: the JPEG bytes and the viewport they show (CSS pixels). */
export interface LiveFrame {
  jpeg: Buffer;
  /** The viewport the image covers, in CSS pixels: input coordinates are in this space. */
  width: number;
  height: number;
}

/** The screen a viewer draws on, as the client reports it (CSS pixels and device pixel ratio). */
export interface ViewerScreen {
  width: number;
  height: number;
  pixelRatio: number;
}

export const MODIFIERS = { alt: 1, ctrl: 2, meta: 4, shift: 8 } as const;

export type LiveInput =
  | { kind: 'mouse'; action: 'down' | 'up' | 'move'; x: number; y: number; button: 'left' | 'middle' | 'right' | 'none'; clickCount: number; modifiers: number }
  | { kind: 'wheel'; x: number; y: number; deltaX: number; deltaY: number }
  | { kind: 'key'; action: 'down' | 'up'; key: string; modifiers: number }
  | { kind: 'text'; text: string };

export interface Viewer {
  /** Sends one frame; resolves once it left (or was dropped for a viewer that is behind). */
  frame(frame: LiveFrame): Promise<void>;
  /**
   * The view ended for this viewer: the tab is gone (`page_closed`: closed, navigated away for
   * good), or it stopped being watchable (`held`: it is the person's payment tab now).
   */
  ended(reason: ViewEnd): void;
}

export type ViewEnd = 'page_closed' | 'held';

export interface Watching {
  resize(screen: ViewerScreen): void;
  /** Stops watching; the screencast stops when the last viewer leaves. */
  close(): void;
}

export interface Controlling extends Watching {
  /** Relays one input event to the tab; false when the tab could not take it (never why or what). */
  input(event: LiveInput): Promise<boolean>;
}

// Frame size bounds: large enough to read a payment form on a desktop, small enough for a phone link.
const MIN_EDGE = 240;
const MAX_EDGE = 1600;
const MAX_PIXEL_RATIO = 2;
const JPEG_QUALITY = 70;
// A viewer in control gets the tab re-laid out to its own box (phones see the provider's mobile
// layout instead of a shrunken desktop page), within these bounds.
const VIEWPORT = { minWidth: 320, maxWidth: 1280, minHeight: 400, maxHeight: 1000 } as const;
// An unacknowledged frame holds the next one back; a viewer this slow is skipped rather than waited on.
const ACK_TIMEOUT_MS = 500;
const CAST_RETRY_MS = 250;
// Input waiting for the tab (each event is one CDP round trip, slower on a busy machine). Past the
// first bound, pointer moves and wheel turns are dropped (the next one supersedes them); past the
// second, everything is: a burst must not leave a backlog that the person's next keys queue behind.
const MAX_QUEUED_MOTION = 16;
const MAX_QUEUED_INPUT = 64;

interface Attachment {
  viewer: Viewer;
  screen: ViewerScreen;
  control: boolean;
}

const views = new WeakMap<Page, LiveView>();

/** The one live view of a tab (created on first use, shared by all its viewers). */
export function liveViewOf(page: Page): LiveView {
  let view = views.get(page);
  if (!view) {
    view = new LiveView(page);
    views.set(page, view);
  }
  return view;
}

export class LiveView {
  readonly #page: Page;
  readonly #attachments = new Set<Attachment>();
  #session: Promise<CDPSession> | null = null;
  #casting: { maxWidth: number; maxHeight: number } | null = null;
  #lastFrame: LiveFrame | null = null;
  #inputQueue: Promise<unknown> = Promise.resolve();
  #inputQueued = 0;
  #ended = false;
  #watchable = true;

  constructor(page: Page) {
    this.#page = page;
    page.once('close', () => this.#end());
  }

  get viewerCount(): number {
    return this.#attachments.size;
  }

  /** Read-only: frames only. There is no input path from a watcher to the tab. */
  watch(viewer: Viewer, screen: ViewerScreen): Watching {
    const attachment = this.#attach(viewer, screen, false);
    return {
      resize: (next) => this.#resize(attachment, next, false),
      close: () => this.#detach(attachment),
    };
  }

  /** In control: frames, and input relayed to the tab. The tab's viewport follows the viewer's box. */
  control(viewer: Viewer, screen: ViewerScreen): Controlling {
    const attachment = this.#attach(viewer, screen, true);
    void this.#fitViewport(screen);
    return {
      resize: (next) => this.#resize(attachment, next, true),
      close: () => this.#detach(attachment),
      input: (event) => this.#input(attachment, event),
    };
  }

  /**
   * The tab is no longer for watching (the run paused on it: it is the person's payment tab now).
   * Watchers get no further frame and are told at once, new ones are refused; viewers in control stay.
   */
  endWatching(): void {
    this.#watchable = false;
    for (const attachment of [...this.#attachments]) {
      if (attachment.control) continue;
      this.#detach(attachment);
      attachment.viewer.ended('held');
    }
  }

  #attach(viewer: Viewer, screen: ViewerScreen, control: boolean): Attachment {
    const attachment = { viewer, screen, control };
    if (this.#ended || (!control && !this.#watchable)) {
      const reason = this.#ended ? 'page_closed' : 'held';
      queueMicrotask(() => viewer.ended(reason));
      return attachment;
    }
    this.#attachments.add(attachment);
    if (this.#lastFrame) void viewer.frame(this.#lastFrame).catch(() => {});
    void this.#cast();
    return attachment;
  }

  #detach(attachment: Attachment): void {
    if (!this.#attachments.delete(attachment)) return;
    if (this.#attachments.size === 0) void this.#stopCast();
  }

  #resize(attachment: Attachment, screen: ViewerScreen, fitViewport: boolean): void {
    attachment.screen = screen;
    if (fitViewport) void this.#fitViewport(screen);
    void this.#cast();
  }

  async #cdp(): Promise<CDPSession> {
    this.#session ??= this.#page.context().newCDPSession(this.#page).then((session) => {
      session.on('Page.screencastFrame', (event) => void this.#onFrame(session, event));
      return session;
    });
    try {
      return await this.#session;
    } catch (error) {
      // Attaching can fail mid-navigation: the next call tries afresh.
      this.#session = null;
      throw error;
    }
  }

  /** The frame size every viewer can use: the largest screen asked for, within bounds. */
  #wantedSize(): { maxWidth: number; maxHeight: number } {
    let maxWidth = MIN_EDGE;
    let maxHeight = MIN_EDGE;
    for (const { screen } of this.#attachments) {
      const ratio = Math.min(MAX_PIXEL_RATIO, Math.max(1, screen.pixelRatio));
      maxWidth = Math.max(maxWidth, Math.ceil(screen.width * ratio));
      maxHeight = Math.max(maxHeight, Math.ceil(screen.height * ratio));
    }
    return { maxWidth: Math.min(MAX_EDGE, maxWidth), maxHeight: Math.min(MAX_EDGE, maxHeight) };
  }

  /** Starts the screencast, or restarts it when the frame size the viewers need has changed. */
  async #cast(): Promise<void> {
    if (this.#ended || this.#attachments.size === 0) return;
    const wanted = this.#wantedSize();
    if (this.#casting && this.#casting.maxWidth === wanted.maxWidth && this.#casting.maxHeight === wanted.maxHeight) return;
    this.#casting = wanted;
    try {
      const session = await this.#cdp();
      await session.send('Page.stopScreencast').catch(() => {});
      await session.send('Page.startScreencast', { format: 'jpeg', quality: JPEG_QUALITY, ...wanted, everyNthFrame: 1 });
    } catch {
      // The tab is navigating, or went away (then `close` ends the viewers): try again shortly.
      this.#casting = null;
      if (!this.#ended) setTimeout(() => void this.#cast(), CAST_RETRY_MS).unref();
    }
  }

  async #stopCast(): Promise<void> {
    this.#casting = null;
    const session = this.#session;
    if (!session) return;
    try {
      await (await session).send('Page.stopScreencast');
    } catch {
      // Already gone.
    }
  }

  async #onFrame(session: CDPSession, event: { data: string; sessionId: number; metadata: { deviceWidth?: number; deviceHeight?: number } }): Promise<void> {
    const frame: LiveFrame = {
      jpeg: Buffer.from(event.data, 'base64'),
      width: Math.round(event.metadata.deviceWidth ?? 0),
      height: Math.round(event.metadata.deviceHeight ?? 0),
    };
    this.#lastFrame = frame;
    const sent = Promise.all([...this.#attachments].map(({ viewer }) => viewer.frame(frame).catch(() => {})));
    await timeLimit(sent, ACK_TIMEOUT_MS, () => undefined);
    // The ack asks Chromium for the next frame: holding it while viewers drain is the backpressure.
    await session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
  }

  async #fitViewport(screen: ViewerScreen): Promise<void> {
    const width = clamp(Math.round(screen.width), VIEWPORT.minWidth, VIEWPORT.maxWidth);
    const height = clamp(Math.round(screen.height), VIEWPORT.minHeight, VIEWPORT.maxHeight);
    const current = this.#page.viewportSize();
    if (current && current.width === width && current.height === height) return;
    await this.#page.setViewportSize({ width, height }).catch(() => {});
    // Re-laid out, the field waiting for the person (the card code, focused at the pause) may have
    // left the view: bring it back, as a phone does when its keyboard opens. A scroll, not an input.
    await this.#page.locator(':focus').first().scrollIntoViewIfNeeded({ timeout: 1000 }).catch(() => {});
  }

  /**
   * Input is relayed in arrival order: a key must not overtake the click that focused its field.
   * Only while its viewer is still attached: the input of a screen that left or was taken over is
   * not replayed onto the tab of the one in control now.
   */
  #input(attachment: Attachment, event: LiveInput): Promise<boolean> {
    const motion = (event.kind === 'mouse' && event.action === 'move') || event.kind === 'wheel';
    if (this.#inputQueued >= (motion ? MAX_QUEUED_MOTION : MAX_QUEUED_INPUT)) return Promise.resolve(false);
    this.#inputQueued += 1;
    const run = this.#inputQueue.then(async () => {
      try {
        if (this.#ended || !this.#attachments.has(attachment)) return false;
        const session = await this.#cdp();
        for (const [method, params] of cdpInput(event)) await session.send(method as 'Input.dispatchKeyEvent', params as never);
        return true;
      } catch {
        return false;
      } finally {
        this.#inputQueued -= 1;
      }
    });
    this.#inputQueue = run;
    return run;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#lastFrame = null;
    for (const { viewer } of this.#attachments) viewer.ended('page_closed');
    this.#attachments.clear();
    this.#session = null;
  }
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}

// Keys that are not text: what Chromium needs to act on them as a real keyboard would
// (Enter submits the form, Backspace deletes, Tab moves focus).
const SPECIAL_KEYS: Record<string, { code: string; keyCode: number; text?: string }> = {
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { code: 'Tab', keyCode: 9 },
  Backspace: { code: 'Backspace', keyCode: 8 },
  Delete: { code: 'Delete', keyCode: 46 },
  Escape: { code: 'Escape', keyCode: 27 },
  ArrowLeft: { code: 'ArrowLeft', keyCode: 37 },
  ArrowUp: { code: 'ArrowUp', keyCode: 38 },
  ArrowRight: { code: 'ArrowRight', keyCode: 39 },
  ArrowDown: { code: 'ArrowDown', keyCode: 40 },
  Home: { code: 'Home', keyCode: 36 },
  End: { code: 'End', keyCode: 35 },
  PageUp: { code: 'PageUp', keyCode: 33 },
  PageDown: { code: 'PageDown', keyCode: 34 },
};

/** The key code Chromium expects for a printable character (US layout; others carry text only). */
function printableKeyCode(ch: string): { code: string; keyCode: number } {
  if (/^[0-9]$/.test(ch)) return { code: `Digit${ch}`, keyCode: ch.charCodeAt(0) };
  if (/^[a-z]$/i.test(ch)) return { code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0) };
  if (ch === ' ') return { code: 'Space', keyCode: 32 };
  return { code: '', keyCode: 0 };
}

/** The CDP calls that carry one input event. */
export function cdpInput(event: LiveInput): Array<[string, Record<string, unknown>]> {
  switch (event.kind) {
    case 'mouse': {
      const type = event.action === 'down' ? 'mousePressed' : event.action === 'up' ? 'mouseReleased' : 'mouseMoved';
      const buttons = event.action === 'up' || event.button === 'none' ? 0 : { left: 1, right: 2, middle: 4 }[event.button];
      return [['Input.dispatchMouseEvent', { type, x: event.x, y: event.y, button: event.button, buttons, clickCount: event.clickCount, modifiers: event.modifiers }]];
    }
    case 'wheel':
      return [['Input.dispatchMouseEvent', { type: 'mouseWheel', x: event.x, y: event.y, deltaX: event.deltaX, deltaY: event.deltaY }]];
    case 'text':
      return [['Input.insertText', { text: event.text }]];
    case 'key': {
      const special = SPECIAL_KEYS[event.key];
      const command = (event.modifiers & (MODIFIERS.ctrl | MODIFIERS.meta)) !== 0;
      const described = special ?? printableKeyCode(event.key);
      const base = { key: event.key, code: described.code, windowsVirtualKeyCode: described.keyCode, nativeVirtualKeyCode: described.keyCode, modifiers: event.modifiers };
      if (event.action === 'up') return [['Input.dispatchKeyEvent', { type: 'keyUp', ...base }]];
      // A shortcut (Ctrl/Cmd + key) is a raw key press; otherwise the key carries its text.
      const text = special ? special.text : command ? undefined : event.key;
      return [['Input.dispatchKeyEvent', text === undefined ? { type: 'rawKeyDown', ...base } : { type: 'keyDown', ...base, text, unmodifiedText: text }]];
    }
  }
}

// ---- Parsing what a client sends: anything malformed is dropped whole, never echoed or logged. ----

const COORDINATE_LIMIT = 10_000;
const TEXT_LIMIT = 256;

function finite(value: unknown, limit = COORDINATE_LIMIT): number | null {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit ? value : null;
}

function modifiersOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 15 ? value : 0;
}

/** One key: a named special key or a single character (one code point, not a control character). */
function validKey(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (Object.hasOwn(SPECIAL_KEYS, value)) return true;
  return [...value].length === 1 && !/\p{Cc}/u.test(value);
}

/** A client's input message as a `LiveInput`, or null when it is not one we relay. */
export function parseInput(message: unknown): LiveInput | null {
  if (!message || typeof message !== 'object') return null;
  const m = message as Record<string, unknown>;
  switch (m.t) {
    case 'mouse': {
      const x = finite(m.x);
      const y = finite(m.y);
      if (x === null || y === null) return null;
      if (m.action !== 'down' && m.action !== 'up' && m.action !== 'move') return null;
      const button = m.button === 'left' || m.button === 'middle' || m.button === 'right' ? m.button : 'none';
      const clickCount = typeof m.clickCount === 'number' && Number.isInteger(m.clickCount) ? clamp(m.clickCount, 0, 3) : m.action === 'move' ? 0 : 1;
      return { kind: 'mouse', action: m.action, x, y, button: m.action === 'move' ? 'none' : button, clickCount, modifiers: modifiersOf(m.modifiers) };
    }
    case 'wheel': {
      const x = finite(m.x);
      const y = finite(m.y);
      const deltaX = finite(m.deltaX ?? 0);
      const deltaY = finite(m.deltaY ?? 0);
      if (x === null || y === null || deltaX === null || deltaY === null) return null;
      return { kind: 'wheel', x, y, deltaX, deltaY };
    }
    case 'key':
      if ((m.action !== 'down' && m.action !== 'up') || !validKey(m.key)) return null;
      return { kind: 'key', action: m.action, key: m.key, modifiers: modifiersOf(m.modifiers) };
    case 'text': {
      if (typeof m.text !== 'string') return null;
      // Line breaks and other control characters are keys, not text: drop them from typed text.
      const text = m.text.replace(/\p{Cc}/gu, '');
      if (text.length === 0 || text.length > TEXT_LIMIT) return null;
      return { kind: 'text', text };
    }
    default:
      return null;
  }
}

/** A client's screen report, or null. */
export function parseScreen(message: unknown): ViewerScreen | null {
  if (!message || typeof message !== 'object') return null;
  const m = message as Record<string, unknown>;
  if (m.t !== 'screen') return null;
  const width = finite(m.width);
  const height = finite(m.height);
  const pixelRatio = finite(m.pixelRatio ?? 1, 8);
  if (width === null || height === null || pixelRatio === null || width < 1 || height < 1 || pixelRatio <= 0) return null;
  return { width, height, pixelRatio };
}
