import type { Browser, BrowserContext } from 'playwright-core';
import type { EgressProxy } from './egress.ts';

// One Chromium per worker process, launched when the first job needs it, shared by every job of the
// process (playwright-core itself is loaded then too: importing it cost start-up about half a second
// of CPU, for a browser /readyz does not need); each job gets a fresh, isolated context (its own cookies, storage and cache). A remote
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

export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  #browser: Promise<Browser> | null = null;
  #closed = false;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
  }

  /**
   * A fresh context for one job. Service workers are blocked (the payment guard's network layer must
   * see every request). With an egress proxy, every connection of the context goes through it.
   */
  async newContext(): Promise<BrowserContext> {
    const browser = await this.browser();
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
