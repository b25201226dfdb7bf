import { OPEN_IN_TAB } from '../names.ts';

// An init script of the top frame: a window the page's own script opens (window.open: "Reserve"
// handing over to a booking engine in a window of its own) opens in this tab instead, as a press's
// link or form target does (same-tab.ts). The run holds one tab, the one it watches, guards and
// hands to the person at the pause (whose live view shows that tab only). The page gets a stand-in
// for the window it asked for: an address given to it later (`w.location = …`, the usual way round
// popup blockers) loads in this tab; closing or focusing it does nothing (closing it must not close
// the run's tab). A frame of the page named as the target, and addresses that are not http(s), are
// left to the browser.

export default function openInTab(): void {
  if (window !== window.top || Object.prototype.hasOwnProperty.call(window, OPEN_IN_TAB)) return;
  Object.defineProperty(window, OPEN_IN_TAB, { value: true });
  const original = window.open;
  const here = window.location;
  const standIn = {
    closed: false,
    opener: null,
    close() {},
    focus() {},
    blur() {},
    postMessage() {},
    get location(): Location | string {
      return here;
    },
    set location(to: Location | string) {
      here.assign(String(to));
    },
  } as unknown as Window;
  const elsewhere = (target: unknown) => {
    const name = target === undefined || target === null ? '' : String(target);
    if (/^_(self|top|parent)$/i.test(name)) return false;
    return name === '' || /^_blank$/i.test(name) || !Array.from(document.querySelectorAll('iframe[name],frame[name]')).some((f) => f.getAttribute('name') === name);
  };
  function open(this: Window, ...args: [url?: string | URL, target?: string, features?: string]): Window | null {
    const [url, target] = args;
    if (!elsewhere(target)) return original.apply(this, args);
    const address = url === undefined || url === null ? '' : String(url);
    if (address === '' || address === 'about:blank') return standIn;
    let to: URL;
    try {
      to = new URL(address, document.baseURI);
    } catch {
      return original.apply(this, args);
    }
    if (to.protocol !== 'http:' && to.protocol !== 'https:') return original.apply(this, args);
    window.location.assign(to.href);
    return standIn;
  }
  Object.defineProperty(window, 'open', { value: open, writable: true, configurable: true, enumerable: true });
}
