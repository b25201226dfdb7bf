import type { Frame, Page } from 'playwright-core';
import { describeOrigin } from './events.ts';
import { firstCardField, focusFirstCardField } from './page-checks.ts';
import type { Bounded } from './page-errors.ts';

// Layer 1's look across the whole page for a card-code field: every frame (same-origin and
// cross-origin iframes, where payment partners put theirs) and open shadow root. Not knowing is
// never a "no": a frame that cannot be asked is reported, and the press that needed it refused.

/** A card-code field found in some frame (or none), or the frame that could not be asked and why. */
export type CardFieldSearch = { field: string | null } | { unasked: string; why: string };

/** Asks every frame, in order, for a card-code field; says which frame could not be asked rather than throwing (the caller may not need the answer). */
export async function findCardField(page: Page, bounded: Bounded): Promise<CardFieldSearch> {
  for (const frame of page.frames()) {
    let found: string | null;
    try {
      found = await askFrame(page, frame, bounded);
    } catch (error) {
      // A frame removed from the page shows nothing any more; every other failure is not knowing.
      if (frame.isDetached()) continue;
      return { unasked: frame === page.mainFrame() ? 'the page' : `a frame from ${describeOrigin(frame.url())}`, why: (error as Error).message.split('\n')[0]! };
    }
    if (found) return { field: found };
  }
  return { field: null };
}

/**
 * Asks one frame for a card-code field once it has its document. A frame with none yet (lazy and
 * below the fold, or waiting for its first answer) cannot be asked: a lazy one is loaded now, and
 * the question waits for the document (within the time limit). One still being parsed is asked
 * again once it is complete: its code field may come further down.
 */
async function askFrame(page: Page, frame: Frame, bounded: Bounded): Promise<string | null> {
  if (frame !== page.mainFrame() && frame.url() === '') {
    const owner = await bounded(frame.frameElement(), 'find a frame');
    await bounded(owner.evaluate((el) => {
      if ((el as HTMLIFrameElement).loading === 'lazy') (el as HTMLIFrameElement).loading = 'eager';
    }), 'load a frame');
    await owner.dispose().catch(() => {});
  }
  const first = await bounded(frame.evaluate(firstCardField), 'look for a card field');
  if (first.field || first.parsed) return first.field;
  await bounded(frame.waitForLoadState('domcontentloaded'), 'wait for a frame to load');
  const again = await bounded(frame.evaluate(firstCardField), 'look for a card field');
  if (again.field || again.parsed) return again.field;
  throw new Error('its document was still loading');
}

/** Focuses the first card-code field the page shows (any frame): the person types there at once. */
export async function focusCardFieldIn(page: Page, bounded: Bounded): Promise<boolean> {
  for (const frame of page.frames()) {
    const focused = await bounded(frame.evaluate(focusFirstCardField), 'focus the card field').catch(() => false);
    if (focused) return true;
  }
  return false;
}
