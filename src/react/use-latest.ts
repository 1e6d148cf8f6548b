// Internal: a ref that always holds the latest value passed in, so effects that
// subscribe once (RPC handlers, input samplers) call the newest callback without
// re-subscribing on every render. Updated in an insertion effect, before any
// layout or passive effect of the same commit can read it.

import { useInsertionEffect, useRef } from 'react';

/**
 * A stable ref whose `current` is `value` from the latest committed render.
 *
 * Read it from effects and event callbacks, never during render (a render that is
 * thrown away never updates it).
 */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  useInsertionEffect(() => {
    ref.current = value;
  });
  return ref;
}
