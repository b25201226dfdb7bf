import { CHANGE_LOG } from '../names.ts';

// An init script of every frame (GuardedPage.settle reads it): when the document last changed, kept
// from the document's start, so that settling after a navigation or a fetch can tell whether the
// page has already shown what came (and then needs only a short quiet moment after it) without
// opening a new quiet window only once it is asked. Read-only to the page: a function that answers
// the time, defined before the page's own scripts run and not replaceable by them.

export default function changeLog(): void {
  if (Object.prototype.hasOwnProperty.call(window, CHANGE_LOG)) return;
  // The document's start is its first change: a new document has changed since anything before it.
  let changedAt = performance.now();
  new MutationObserver(() => {
    changedAt = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(window, CHANGE_LOG, { value: () => changedAt, enumerable: false, configurable: false, writable: false });
}
