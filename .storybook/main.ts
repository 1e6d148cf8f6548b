// Storybook 10, React + Vite. The package's own entry points are aliased to the
// sources so stories import 'react-netcode', 'react-netcode/react' and
// 'react-netcode/r3f' exactly like user code does, with no build step.
import { fileURLToPath } from 'node:url';
import type { StorybookConfig } from '@storybook/react-vite';

const src = (path: string): string => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

const config: StorybookConfig = {
  framework: { name: '@storybook/react-vite', options: {} },
  stories: ['../stories/**/*.stories.@(ts|tsx)'],
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
  typescript: { reactDocgen: false },
  viteFinal(vite) {
    vite.resolve ??= {};
    const aliases = [
      // Longest first: 'react-netcode' must not swallow 'react-netcode/react'.
      { find: /^react-netcode\/react$/, replacement: src('react/index.ts') },
      { find: /^react-netcode\/r3f$/, replacement: src('r3f/index.ts') },
      { find: /^react-netcode$/, replacement: src('index.ts') },
    ];
    const existing = vite.resolve.alias;
    vite.resolve.alias = Array.isArray(existing) ? [...aliases, ...existing] : [...aliases, ...Object.entries(existing ?? {}).map(([find, replacement]) => ({ find, replacement: replacement as string }))];
    return vite;
  },
};

export default config;
