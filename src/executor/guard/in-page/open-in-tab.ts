import { OPEN_IN_TAB } from '../names.ts';

// An init script of the top frame: a window the page's own script opens (window.open: "Reserve"
// handing over to a booking engine in a window of its own) opens in this tab instead, as a press's
// link or form target does (same-tab.ts). The run holds one tab, the one it watches, guards and
// hands to the person at the pause (whose live view shows that tab only). A window opened with no
// address, to be given one later (`w.location = …`, the usual way round popup blockers), is this
// window too, so that the address it is given later loads here. A frame of the page named as the
// target, and addresses that are not http(s), are left to the browser.

export default function openInTab(): void {
  if (window !== window.top || Object.prototype.hasOwnProperty.call(window, OPEN_IN_TAB)) return;
  Object.defineProperty(window, OPEN_IN_TAB, { value: true });
  const original = window.open;
  const elsewhere = (target: unknown) => {
    const name = target === undefined || target === null ? '' : String(target);
    if (/^_(self|top|parent)$/i.test(name)) return false;
    return name === '' || /^_blank$/i.test(name) || !Array.from(document.querySelectorAll('iframe[name],frame[name]')).some((f) => f.getAttribute('name') === name);
  };
  function open(this: Window, ...args: [url?: string | URL, target?: string, features?: string]): Window | null {
    const [url, target] = args;
    if (!elsewhere(target)) return original.apply(this, args);
    const address = url === undefined || url === null ? '' : String(url);
    if (address === '' || address === 'about:blank') return window;
    let to: URL;
    try {
      to = new URL(address, document.baseURI);
    } catch {
      return original.apply(this, args);
    }
    if (to.protocol !== 'http:' && to.protocol !== 'https:') return original.apply(this, args);
    window.location.assign(to.href);
    return window;
  }
  Object.defineProperty(window, 'open', { value: open, writable: true, configurable: true, enumerable: true });
}
