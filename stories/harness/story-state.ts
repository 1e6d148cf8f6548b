// What a story exposes to the test (test/storybook/stories.test.ts) on `window.__story`:
// frames run, the story's own figure (the numbers it teaches) and probes — page
// coordinates (CSS px) of ghosts drawn this frame, where a pixel check must find
// something other than the background.

export interface Probe {
  /** Page (viewport) coordinates in CSS pixels. */
  x: number;
  y: number;
  /** The canvas background at that spot, '#rrggbb'. */
  background: string;
}

export interface StoryState {
  frames: number;
  figure: Record<string, unknown>;
  probes: Record<string, Probe>;
}

declare global {
  interface Window {
    __story?: StoryState;
  }
}

/** The page's story state (created on first use). */
export function storyState(): StoryState {
  window.__story ??= { frames: 0, figure: {}, probes: {} };
  return window.__story;
}

/** Start afresh (a story mounting or remounting with new args). */
export function resetStoryState(): void {
  window.__story = { frames: 0, figure: {}, probes: {} };
}

/** Merge numbers into the story's figure. */
export function reportFigure(values: Record<string, unknown>): void {
  Object.assign(storyState().figure, values);
}
