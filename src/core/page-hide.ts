// Leaving when the page goes: a closed tab (or a navigation away) fires `pagehide`; the
// client then sends its Close at once, so the server ends the connection and other
// players see this one go now, not after the resume grace. A page kept for the
// back/forward cache (`persisted`) is not left: its link drops and it resumes if it
// comes back within the grace. No DOM types here: any EventTarget-like object will do.

/** What `leaveOnPageHide` listens on (`window` in a browser). */
export interface PageEvents {
  addEventListener(type: 'pagehide', listener: (event: { persisted?: boolean }) => void): void;
  removeEventListener(type: 'pagehide', listener: (event: { persisted?: boolean }) => void): void;
}

/** The reason the server sees when a page was closed. */
export const PAGE_CLOSED_REASON = 'react-netcode: the page was closed';

/**
 * On `pagehide` of `target` (default: globalThis, i.e. `window`), unless the page is kept
 * in the back/forward cache, call `client.leave()` — the Close goes out before the page is
 * gone. Returns the function that stops listening; a no-op where there is no `target`.
 * The React provider does this itself (`leaveOnPageHide`, default on).
 */
export function leaveOnPageHide(client: { leave(reason?: string): void }, target?: PageEvents): () => void {
  const events = target ?? (globalThis as Partial<PageEvents>);
  if (typeof events.addEventListener !== 'function' || typeof events.removeEventListener !== 'function') return () => {};
  const onPageHide = (event: { persisted?: boolean }): void => {
    if (event.persisted !== true) client.leave(PAGE_CLOSED_REASON);
  };
  events.addEventListener('pagehide', onPageHide);
  return () => events.removeEventListener!('pagehide', onPageHide);
}
