// Live tuning with leva: the grenade config. Moving a slider sends the `tune` RPC
// with the whole config; the server clamps it and writes the replicated `config`
// ghost, which every client predicts with. The sliders follow that ghost, so a
// change made by another player (or clamped by the server) shows here too.
import { button, useControls } from 'leva';
import { useEffect, useRef, type ReactNode } from 'react';
import { CONFIG_KEYS, CONFIG_LIMITS, configOf, DEFAULT_CONFIG, roundConfig, type GrenadeConfig } from '../shared/config.ts';
import { useNetcode, useSendRpc } from './netcode.ts';

export function Tuning(): ReactNode {
  const { client } = useNetcode();
  const tune = useSendRpc('tune');
  /** What this panel asks for: the last config seen from the server, with the panel's edits on top. */
  const wanted = useRef<GrenadeConfig>({ ...DEFAULT_CONFIG });
  const send = useRef<(key: keyof GrenadeConfig, value: number) => void>(() => {});
  send.current = (key, value) => {
    wanted.current[key] = value;
    const current = configOf(client.world);
    if (CONFIG_KEYS.every((k) => roundConfig(wanted.current[k]) === current[k])) return; // an echo of the server's value
    tune({ ...wanted.current });
  };
  const [, set] = useControls('grenade (live, server-checked)', () => ({
    ...Object.fromEntries(
      CONFIG_KEYS.map((key) => {
        const { min, max, step, label } = CONFIG_LIMITS[key];
        return [key, { value: DEFAULT_CONFIG[key], min, max, step, label, onChange: (v: number, _path: string, ctx: { initial: boolean }) => void (ctx.initial || send.current(key, v)), transient: false as const }];
      }),
    ),
    'reset (NFE sample)': button(() => {
      wanted.current = { ...DEFAULT_CONFIG };
      tune({ ...DEFAULT_CONFIG });
    }),
  }));
  // Follow the config ghost at UI rate: only when it changes, so a slider being dragged is not pulled back.
  useEffect(() => {
    let seen = '';
    const id = setInterval(() => {
      const current = configOf(client.world);
      const key = JSON.stringify(current);
      if (key === seen) return;
      seen = key;
      wanted.current = { ...current };
      set({ ...current });
    }, 250);
    return () => clearInterval(id);
  }, [client, set]);
  return null;
}
