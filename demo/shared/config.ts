// The live-tuned grenade configuration: defaults (the NFE grenade sample's), the
// limits the server clamps a `tune` request to, and how systems read it.
import type { World } from '../../src/index.ts';
import type { DemoProtocol } from './protocol.ts';

export interface GrenadeConfig {
  grenadeSpeed: number;
  fuse: number;
  blastRadiusSq: number;
  blastPower: number;
  verticalClamp: number;
  chainFuse: number;
}

export type ConfigKey = keyof GrenadeConfig;

/** The NFE grenade sample's values: 15 m/s, 3 s fuse, radius² 40 (≈ 6.3 m), power 10, vertical clamp 1.5, chain reaction 0.4 s. */
export const DEFAULT_CONFIG: Readonly<GrenadeConfig> = Object.freeze({
  grenadeSpeed: 15,
  fuse: 3,
  blastRadiusSq: 40,
  blastPower: 10,
  verticalClamp: 1.5,
  chainFuse: 0.4,
});

/** What the server accepts (a `tune` value outside is clamped), and the tuning panel's slider ranges and (short) labels. */
export const CONFIG_LIMITS: Readonly<Record<ConfigKey, { min: number; max: number; step: number; label: string }>> = Object.freeze({
  grenadeSpeed: { min: 1, max: 30, step: 0.5, label: 'speed m/s' },
  fuse: { min: 0.5, max: 10, step: 0.1, label: 'fuse s' },
  blastRadiusSq: { min: 1, max: 200, step: 1, label: 'radius² m²' },
  blastPower: { min: 0, max: 40, step: 0.5, label: 'power m/s' },
  verticalClamp: { min: 0, max: 20, step: 0.1, label: 'vertical clamp' },
  chainFuse: { min: 0, max: 3, step: 0.05, label: 'chain fuse s' },
});

export const CONFIG_KEYS = Object.keys(DEFAULT_CONFIG) as ConfigKey[];

/** Round as the wire does (f32 quantized to 0.01), so the server holds exactly what clients decode. */
export const roundConfig = (v: number): number => (Math.round(v * 100) + 0) / 100;

/** The config a `tune` request asks for, clamped to CONFIG_LIMITS (NaN keeps `current`) and rounded like the wire. */
export function clampConfig(requested: Readonly<GrenadeConfig>, current: Readonly<GrenadeConfig> = DEFAULT_CONFIG): GrenadeConfig {
  const out = { ...current };
  for (const key of CONFIG_KEYS) {
    const v = requested[key];
    const { min, max } = CONFIG_LIMITS[key];
    out[key] = Number.isNaN(v) ? current[key] : roundConfig(Math.min(max, Math.max(min, v)));
  }
  return out;
}

/** The game's config ghost values, or the defaults before it exists (a client before its first snapshot). */
export function configOf(world: World<DemoProtocol>): Readonly<GrenadeConfig> {
  for (const c of world.query('config')) return c.components;
  return DEFAULT_CONFIG;
}
