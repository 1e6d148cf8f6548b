// Global story parameters: full-screen layout (the stories are split views of
// canvases), the controls panel expanded with descriptions, and the frame-loop
// switch: real time, or deterministic frames on a virtual clock for screenshots
// (toolbar, or `&globals=frameloop:deterministic;pauseAt:300` in the URL; see
// docs/storybook.md and stories/harness/frameloop.ts).
import type { Preview } from '@storybook/react-vite';
import { withFrameLoop } from '../stories/harness/frameloop-react.tsx';

const preview: Preview = {
  parameters: {
    layout: 'fullscreen',
    controls: { expanded: true, sort: 'requiredFirst' },
  },
  globalTypes: {
    frameloop: {
      description: 'Real time, or deterministic frames: one virtual clock advanced 1/60 s per frame, frame N always the same picture',
      toolbar: {
        title: 'Frame loop',
        icon: 'time',
        items: [
          { value: 'realtime', title: 'Real time' },
          { value: 'deterministic', title: 'Deterministic frames' },
        ],
        dynamicTitle: true,
      },
    },
    pauseAt: {
      description: 'Deterministic frames: pause once this frame has run (then play or step from the bar above the story)',
      toolbar: {
        title: 'Pause at',
        icon: 'stopalt',
        items: [
          { value: 'off', title: 'Play on' },
          { value: '0', title: 'Pause at frame 0' },
          { value: '60', title: 'Pause at frame 60' },
          { value: '300', title: 'Pause at frame 300' },
          { value: '600', title: 'Pause at frame 600' },
        ],
        dynamicTitle: true,
      },
    },
  },
  initialGlobals: { frameloop: 'realtime', pauseAt: 'off' },
  decorators: [withFrameLoop],
};

export default preview;
