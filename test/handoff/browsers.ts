import type { Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { until } from '../helpers/wait.ts';

// Shared by the handoff tests: a real Chromium, and the waits for a live view to be showing frames.
export { launchChromium };

/** Waits until the live view on `viewerPage` draws frames of the held tab at the tab's current size (a precondition: generous, for a loaded machine). */
export async function waitForLiveFrames(viewerPage: Page, heldPage: Page, timeoutMs = 60_000): Promise<void> {
  await viewerPage.waitForSelector('[data-live-view][data-state="live"]', { timeout: timeoutMs });
  // A viewer in control has the tab re-laid out to its box: wait for frames of the new layout.
  let matches = 0;
  await until('the live view showed the held tab at its size', async () => {
    const size = heldPage.viewportSize();
    const drawn = await viewerPage.getAttribute('[data-live-view]', 'data-frame-size');
    matches = size && drawn === `${size.width}x${size.height}` ? matches + 1 : 0;
    return matches >= 3;
  }, timeoutMs, 100);
}

/** Where, on the viewer's screen, an element of the held tab is drawn (its centre). */
export async function pointOnView(viewerPage: Page, heldPage: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = await heldPage.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not visible in the held tab`);
  const canvas = await viewerPage.locator('[data-live-view] canvas').boundingBox();
  if (!canvas) throw new Error('no live view canvas');
  const [frameWidth, frameHeight] = ((await viewerPage.getAttribute('[data-live-view]', 'data-frame-size')) ?? '0x0').split('x').map(Number) as [number, number];
  return {
    x: canvas.x + ((box.x + box.width / 2) * canvas.width) / frameWidth,
    y: canvas.y + ((box.y + box.height / 2) * canvas.height) / frameHeight,
  };
}
