import { CHANGE_LOG } from '../names.ts';
import type { PressQuiet } from './arm-press.ts';
import { untilQuiet } from './until-quiet.ts';

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
  const left = () => {
    const last = changedAt();
    return (last >= start ? Math.max(last, rest) + q.reactedQuietMs : rest + q.quietMs) - performance.now();
  };
  return untilQuiet(left, () => document.readyState !== 'loading', q.capMs).finally(() => observer?.disconnect());
}
