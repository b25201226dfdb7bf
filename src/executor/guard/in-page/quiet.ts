import { CHANGE_LOG } from '../names.ts';
import type { PressQuiet } from './arm-press.ts';

/**
 * Resolves once the document is parsed and quiet. A change since `sinceMs` ago (the driver's last
 * act began, or the page's last request came or went, whichever is later) is the page's answer:
 * then `reactedQuietMs` after its last change (and after the act ended, `restMs` ago); with no change
 * since, `quietMs` after the act ended (the page may still be about to answer: a debounced search). The change log (change-log.ts) says when the document
 * last changed; in a page without it (a guard installed without it), changes are watched from now,
 * and the whole `quietMs` is waited from now, as nothing before can be known.
 */
export default function quiet(q: PressQuiet): Promise<boolean> {
  const now = performance.now();
  const log = (window as unknown as Record<string, unknown>)[CHANGE_LOG];
  let watched = -Infinity;
  const observer = typeof log === 'function' ? null : new MutationObserver(() => {
    watched = performance.now();
  });
  observer?.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const changedAt = () => (observer ? watched : Number((log as () => number)()));
  const start = observer ? now : now - (q.sinceMs ?? 0);
  const rest = observer ? now : now - (q.restMs ?? q.sinceMs ?? 0);
  return new Promise<boolean>((resolve) => {
    const tick = () => {
      const at = performance.now();
      const last = changedAt();
      const wait = last >= start ? Math.max(last, rest) + q.reactedQuietMs - at : rest + q.quietMs - at;
      if ((document.readyState !== 'loading' && wait <= 0) || at - now >= q.capMs) {
        observer?.disconnect();
        resolve(true);
      } else setTimeout(tick, Math.max(5, wait));
    };
    // Through the timer queue first, as arm-press.ts's settled(): overdue page timers run before it.
    setTimeout(tick, 0);
  });
}
