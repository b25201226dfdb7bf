import { GUARD_BINDING } from '../names.ts';

/** `call(...)`: the binding as the page found it at start (a page cannot swap it later), never throwing. */
export function bindingCall(): (...args: unknown[]) => unknown {
  const binding = (window as unknown as Record<string, unknown>)[GUARD_BINDING];
  return (...args) => {
    try {
      return typeof binding === 'function' ? binding(...args) : undefined;
    } catch {
      return undefined;
    }
  };
}
