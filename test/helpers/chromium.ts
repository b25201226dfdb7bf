import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/browser/pool.ts';

/** A real headless Chromium started as the service starts its own (the same flags: WebMCP on, a fresh profile). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 30_000 });
}
