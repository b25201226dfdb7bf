/**
 * A box whose popup is a date picker (aria-haspopup dialog or grid). Element Plus's and Ant Design's
 * open it on focus, so a box left focused once filled has its picker lying over the next control:
 * whoever fills one leaves it (the guarded page, and the bench's reference walk as the guard does).
 * A box with a suggestion list (listbox) stays focused, to choose from it. Runs in the page
 * (`locator.evaluate`), so it refers to nothing outside itself.
 */
export function opensPicker(el: Element): boolean {
  return ['dialog', 'grid'].includes((el.getAttribute('aria-haspopup') ?? '').toLowerCase());
}
