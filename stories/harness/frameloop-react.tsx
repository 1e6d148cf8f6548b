// React side of the frame-loop switch: the `frameloop` / `pauseAt` globals (toolbar
// entries in .storybook/preview.ts, or `&globals=frameloop:deterministic;pauseAt:300`
// in the URL), the decorator that creates the page's FixedFrameLoop for deterministic
// mode and shares it through context, and the bar above the story with the frame
// number, the virtual time and play / pause / step buttons.
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { Decorator } from '@storybook/react-vite';
import { FIXED_FRAME_MS, FixedFrameLoop, type FrameLoopMode } from './frameloop.ts';
import { argsKey } from './args.ts';

/** The page's deterministic frame loop, or null in real time. */
const FrameLoopContext = createContext<FrameLoopContextValue>(null);
type FrameLoopContextValue = FixedFrameLoop | null;

/** The deterministic frame loop of this story, or null when it runs in real time. */
export function useFrameLoop(): FixedFrameLoop | null {
  return useContext(FrameLoopContext);
}

/** `globals.frameloop` → mode; anything but 'deterministic' is real time. */
export function frameLoopMode(value: unknown): FrameLoopMode {
  return value === 'deterministic' ? 'deterministic' : 'realtime';
}

/** `globals.pauseAt` → a frame number ('300' from the toolbar, 300 from the URL), or undefined ('off'). */
export function pauseAtFrame(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The decorator: a full-height page, and in deterministic mode a FixedFrameLoop for the
 * story (remade, with the story, when the mode, pauseAt or any arg changes) and its bar.
 */
export const withFrameLoop: Decorator = (Story, context) => {
  const mode = frameLoopMode(context.globals.frameloop);
  const pauseAt = pauseAtFrame(context.globals.pauseAt);
  return (
    <FrameLoopRoot key={`${mode}:${String(pauseAt)}:${argsKey(context.args)}`} mode={mode} pauseAt={pauseAt}>
      <Story />
    </FrameLoopRoot>
  );
};

function FrameLoopRoot({ mode, pauseAt, children }: { mode: FrameLoopMode; pauseAt: number | undefined; children: ReactNode }): ReactNode {
  const [loop] = useState(() => (mode === 'deterministic' ? new FixedFrameLoop({ pauseAt }) : null));
  useEffect(() => {
    if (!loop) return;
    loop.start();
    return () => loop.stop();
  }, [loop]);
  return (
    <div style={{ height: '100vh', display: 'flex', flexDirection: 'column', background: '#1e1e24' }}>
      {loop && <FrameLoopBar loop={loop} />}
      <div style={{ flex: 1, minHeight: 0 }}>
        <FrameLoopContext.Provider value={loop}>{children}</FrameLoopContext.Provider>
      </div>
    </div>
  );
}

const button = { background: '#3a3a46', color: '#eee', border: '1px solid #555', borderRadius: 3, padding: '1px 8px', font: 'inherit', cursor: 'pointer' } as const;

/** Frame number, virtual time and the playback buttons (deterministic mode only). */
function FrameLoopBar({ loop }: { loop: FixedFrameLoop }): ReactNode {
  // A string snapshot: useSyncExternalStore compares by value, the bar re-renders when it changes.
  const text = useSyncExternalStore(
    (onChange) => loop.subscribe(onChange),
    () => {
      const s = loop.status;
      return `${s.frame}|${s.timeMs.toFixed(1)}|${s.paused ? 1 : 0}|${s.ready ? 1 : 0}`;
    },
  );
  const [frame, time, paused, ready] = text.split('|');
  return (
    <div
      data-frameloop-bar
      style={{ display: 'flex', alignItems: 'center', gap: 6, padding: '3px 10px', fontFamily: 'system-ui, sans-serif', fontSize: 12, color: '#eee', background: '#2b2b33', borderBottom: '1px solid #444' }}
    >
      <b>Deterministic frames</b>
      <span style={{ fontFamily: 'ui-monospace, monospace' }}>
        {ready === '1' ? `frame ${frame} · t = ${time} ms` : 'waiting for the canvases…'} · {FIXED_FRAME_MS.toFixed(2)} ms per frame
      </span>
      <span style={{ flex: 1 }} />
      {paused === '1' ? (
        <button type="button" style={button} onClick={() => loop.play()}>
          ▶ play
        </button>
      ) : (
        <button type="button" style={button} onClick={() => loop.pause()}>
          ⏸ pause
        </button>
      )}
      {[1, 10, 60, 300].map((n) => (
        <button key={n} type="button" style={button} onClick={() => loop.step(n)} title={`Pause and run ${n} more frame${n === 1 ? '' : 's'}`}>
          +{n}
        </button>
      ))}
    </div>
  );
}
