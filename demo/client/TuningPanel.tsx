// The tuning panel, in a chunk of its own (Session.tsx loads it when its button is
// pressed): leva with the live grenade config (Tuning.tsx) and the ball switching
// settings, which it hands to the scene through switching.ts.
import { Leva, useControls } from 'leva';
import { useEffect, type ReactNode } from 'react';
import { getBallSettings, setBallSettings } from './switching.ts';
import { Tuning } from './Tuning.tsx';

function BallSwitchingControls(): null {
  const initial = getBallSettings();
  const settings = useControls('ball switching', {
    radius: { value: initial.radius, min: 0, max: 30, step: 0.5 },
    margin: { value: initial.margin, min: 0, max: 10, step: 0.5 },
    tint: { value: initial.tint, label: 'tint' },
  });
  useEffect(() => setBallSettings(settings), [settings]);
  return null;
}

export default function TuningPanel(): ReactNode {
  return (
    <>
      <Tuning />
      <BallSwitchingControls />
      <Leva fill titleBar={{ title: 'tuning', filter: false }} />
    </>
  );
}
