// Global story parameters: full-screen layout (the stories are split views of
// canvases) and the controls panel expanded with descriptions.
import type { Preview } from '@storybook/react-vite';

const preview: Preview = {
  parameters: {
    layout: 'fullscreen',
    controls: { expanded: true, sort: 'requiredFirst' },
  },
};

export default preview;
