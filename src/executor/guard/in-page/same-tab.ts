/**
 * A control about to be pressed that would open its page in another tab or window (a link's or
 * form's `target`, a submit button's `formtarget`: "Reserve" handing over to a booking engine in a
 * new tab) opens it in this one. The run holds one tab, the one it watches, guards and hands to the
 * person at the pause; the request sent is the same. A window a page's script opens itself is not
 * covered here.
 */
export function keepInTab(el: Element): void {
  const away = (target: string | null) => target !== null && target !== '' && !/^_(self|top|parent)$/i.test(target);
  const link = el.closest('a[href], area[href]') as HTMLAnchorElement | null;
  if (link && away(link.getAttribute('target'))) link.target = '_self';
  const button = el as HTMLButtonElement;
  if ((button.tagName === 'BUTTON' || button.tagName === 'INPUT') && away(button.getAttribute('formtarget'))) button.formTarget = '_self';
  const form = button.form ?? el.closest('form');
  if (form && away(form.getAttribute('target'))) form.target = '_self';
}
