import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/browser/pool.ts';

/**
 * A real headless Chromium started as the service starts its own (the same flags: WebMCP on, a fresh
 * profile). 60 s to start: two test files at once, each with several browsers, load a 2-core machine
 * to 10-15, and a fresh-clone CI run there saw a hook's start fail within 30 s.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 60_000 });
}
