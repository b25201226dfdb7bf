import type { Browser, BrowserContext, Page } from 'playwright-core';
import { keepAccessibilityTree } from './accessibility.ts';
import { timeLimit } from './time-limit.ts';
import type { EgressProxy } from './egress.ts';

// One Chromium per worker process, launched when the first job needs it, shared by every job of the
// process (playwright-core itself is loaded then too: importing it cost start-up about half a second
// of CPU, for a browser /readyz does not need); each job gets a fresh, isolated context (its own cookies, storage and cache),
// made while the worker waited when it can be (keepSpare: the tab's renderer is the slow part). A remote
// browser (BROWSER_WS_ENDPOINT) takes the place of the local one when one machine is not enough.

// Headless Chromium 156 opens a browser window per context and preloads its "top chrome" WebUI (the
// omnibox popups) in a renderer of its own: one extra ~36 MB process per job. Those features are
// disabled. Chromium keeps only the last --disable-features, so Playwright's own list is repeated.
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
];
const TOP_CHROME_WEBUI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'PreloadTopChromeWebUI'];

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...TOP_CHROME_WEBUI].join(',')}`,
  // Pages' WebMCP tools (document.modelContext), which the generic driver calls through the payment
  // guard (src/executor/guard/webmcp.ts). Playwright merges its own enabled features with this one.
  '--enable-features=WebMCP',
  // Element.computedName / computedRole: the generic driver reads names and roles from Chromium's own
  // accessibility tree (src/providers/generic/dom/in-page/lib.ts), not from a hand-written copy of it.
  '--enable-blink-features=ComputedAccessibilityInfo',
  // WebRTC's UDP would go around the egress proxy (src/browser/egress.ts): only proxied traffic.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

export interface BrowserPoolOptions {
  chromiumPath: string;
  wsEndpoint?: string;
  /** The proxy every context's connections go through (the public-web-only egress policy), if any. */
  egress?: EgressProxy;
  /** How long connecting to wsEndpoint may take (CONNECT_TIMEOUT_MS unless set; tests shorten it). */
  connectTimeoutMs?: number;
}

/**
 * A remote browser that accepts the connection but never completes the handshake (a server dying
 * as it starts, a proxy holding the socket) would otherwise hang the job's run and, through
 * close(), the service's shutdown: playwright's connect() waits forever by default.
 */
const CONNECT_TIMEOUT_MS = 30_000;

/** A context made before a job asked for one, its first tab open: the next job's, with the tab's renderer already started. */
interface Spare {
  context: BrowserContext;
  tab: Page;
}

/**
 * How long a job waits for a spare still being made before it makes its own context (a spare
 * normally takes 100-300 ms; one that hangs must not hold up, or fail, the job that wanted it).
 */
const SPARE_WAIT_MS = 2_000;

/** The tab a spare context was handed out with, until its first try takes it (openTab). */
const spareTabs = new WeakMap<BrowserContext, Page>();

/** A spare's tab as it was made: open, and nothing loaded in it yet. */
const blank = (tab: Page) => !tab.isClosed() && tab.url() === 'about:blank';

/**
 * A tab for a try in `context`: the one it was made with, when it is still blank (the first try of
 * a job given a spare), or a new one. Opening a tab starts its renderer (70-350 ms, the largest
 * fixed cost of a booking); a spare's was started while the worker had nothing to do.
 */
export async function openTab(context: BrowserContext): Promise<Page> {
  const tab = spareTabs.get(context);
  spareTabs.delete(context);
  if (tab && blank(tab)) return tab;
  return context.newPage();
}

export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  #browser: Promise<Browser> | null = null;
  #spare: Promise<Spare | null> | null = null;
  #closed = false;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
  }

  /**
   * A fresh context for one job: the spare when there is one (made by keepSpare, untouched since),
   * or a new one. Either way no page has been in it: isolated as much as a context made now.
   */
  async newContext(): Promise<BrowserContext> {
    const spare = await this.#takeSpare();
    if (spare) {
      spareTabs.set(spare.context, spare.tab);
      return spare.context;
    }
    return this.#newContext(await this.browser());
  }

  /**
   * Makes the next job's context ahead of it, with its tab open, while the worker has nothing to do
   * (called when a run ends): one spare per pool, and only once the browser is running (it starts
   * with the first job that needs it, not for a spare).
   */
  keepSpare(): void {
    if (this.#closed || this.#spare || !this.#browser) return;
    const browser = this.#browser;
    this.#spare = (async () => {
      const context = await this.#newContext(await browser);
      try {
        const tab = await context.newPage();
        // Most sites are booked by the generic driver, which reads names from the tree; a job whose
        // driver does not read them keeps it on a tab that is not asked (switching it off made no
        // measurable difference to a booking: docs/benchmarks.md, 2026-12-04 evening).
        await keepAccessibilityTree(tab, SPARE_WAIT_MS);
        return { context, tab };
      } catch (error) {
        await context.close().catch(() => {});
        throw error;
      }
    })().catch(() => null);
  }

  /** The spare, if it is still usable (its browser connected, its tab open and blank). */
  async #takeSpare(): Promise<Spare | null> {
    const pending = this.#spare;
    this.#spare = null;
    if (!pending) return null;
    const spare = await timeLimit(pending, SPARE_WAIT_MS, () => {
      void pending.then((late) => late?.context.close().catch(() => {}));
      return null;
    });
    if (!spare) return null;
    if (!this.#closed && spare.context.browser()?.isConnected() && blank(spare.tab)) return spare;
    await spare.context.close().catch(() => {});
    return null;
  }

  /** Service workers are blocked (the payment guard's network layer must see every request); with an egress proxy, every connection of the context goes through it. */
  async #newContext(browser: Browser): Promise<BrowserContext> {
    const proxy = this.#options.egress?.settingsFor();
    const context = await browser.newContext({
      serviceWorkers: 'block',
      acceptDownloads: false,
      viewport: { width: 1280, height: 860 },
      locale: 'en-GB',
      timezoneId: 'UTC',
      ...(proxy ? { proxy } : {}),
    });
    if (proxy) this.#options.egress!.adopt(context, proxy);
    return context;
  }

  async browser(): Promise<Browser> {
    if (this.#closed) throw new Error('the browser pool is closed');
    this.#browser ??= this.#start();
    try {
      return await this.#browser;
    } catch (error) {
      this.#browser = null;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#browser;
    this.#browser = null;
    await this.#takeSpare();
    if (pending) await pending.then((b) => b.close()).catch(() => {});
  }

  async #start(): Promise<Browser> {
    const { wsEndpoint, chromiumPath, connectTimeoutMs: timeout = CONNECT_TIMEOUT_MS } = this.#options;
    const { chromium } = await import('playwright-core');
    const browser = wsEndpoint
      ? /\/devtools\/browser\//.test(wsEndpoint) || /^https?:/.test(wsEndpoint)
        ? await chromium.connectOverCDP(wsEndpoint, { timeout })
        : await chromium.connect(wsEndpoint, { timeout })
      // Playwright closes the browser on SIGTERM/SIGINT/SIGHUP by default: a draining node must
      // keep its held tabs open until their people have paid (the service closes the browser itself).
      : await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, headless: true, handleSIGTERM: false, handleSIGINT: false, handleSIGHUP: false });
    // A crashed or disconnected browser is replaced on the next job's request.
    browser.on('disconnected', () => {
      if (this.#browser) this.#browser = null;
    });
    return browser;
  }
}
