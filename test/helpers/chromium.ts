import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/browser/pool.ts';

/**
 * How long a test's page may take over one action or navigation unless the test says otherwise:
 * twice Playwright's 30 s, which a page among several opened at once overran on a loaded CI machine.
 * These waits are preconditions; a test that measures a time sets its own limit.
 */
const ACTION_TIMEOUT_MS = 60_000;

/**
 * A real headless Chromium started as the service starts its own (the same flags: WebMCP on, a fresh
 * profile). 60 s to start: two test files at once, each with several browsers, load a 2-core machine
 * to 10-15, and a fresh-clone CI run there saw a hook's start fail within 30 s.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 60_000 });
  // browser.newPage() opens its context through this too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    return context;
  };
  return browser;
}
