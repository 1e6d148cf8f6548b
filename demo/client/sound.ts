// Short sound effects synthesised with WebAudio (no sample files): an explosion (a
// burst of filtered noise), a kick (a falling sine thump) and a goal (a rising
// two-note chime). The AudioContext is created only after the page's first key or
// pointer press (before one, Chromium refuses to start it and warns in the console);
// until then, and without WebAudio, every call does nothing.

let ctx: AudioContext | undefined;
let noise: AudioBuffer | undefined;
let unlocked = false;

if (typeof window !== 'undefined') {
  const unlock = (): void => {
    unlocked = true;
    window.removeEventListener('keydown', unlock, true);
    window.removeEventListener('pointerdown', unlock, true);
  };
  window.addEventListener('keydown', unlock, true);
  window.addEventListener('pointerdown', unlock, true);
}

function audio(): AudioContext | undefined {
  if (!unlocked || typeof AudioContext === 'undefined') return undefined;
  ctx ??= new AudioContext();
  if (ctx.state === 'suspended') void ctx.resume().catch(() => {});
  return ctx.state === 'running' ? ctx : undefined;
}

function envelope(a: AudioContext, peak: number, seconds: number): GainNode {
  const g = a.createGain();
  g.gain.setValueAtTime(peak, a.currentTime);
  g.gain.exponentialRampToValueAtTime(0.001, a.currentTime + seconds);
  g.connect(a.destination);
  return g;
}

/** A blast: 0.6 s of white noise through a low-pass falling from 2 kHz, quieter with distance (m). */
export function playExplosion(distance = 0): void {
  const a = audio();
  if (a === undefined) return;
  if (noise === undefined) {
    noise = a.createBuffer(1, a.sampleRate * 0.6, a.sampleRate);
    const data = noise.getChannelData(0);
    let seed = 1;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 16807) % 2147483647; // a fixed pseudo-random noise: the same blast every time
      data[i] = (seed / 2147483647) * 2 - 1;
    }
  }
  const src = a.createBufferSource();
  src.buffer = noise;
  const filter = a.createBiquadFilter();
  filter.type = 'lowpass';
  filter.frequency.setValueAtTime(2000, a.currentTime);
  filter.frequency.exponentialRampToValueAtTime(120, a.currentTime + 0.6);
  src.connect(filter).connect(envelope(a, 0.5 / (1 + distance / 10), 0.6));
  src.start();
}

/** A kick: a sine from 180 Hz down to 60 Hz in 0.12 s. */
export function playKick(): void {
  const a = audio();
  if (a === undefined) return;
  const osc = a.createOscillator();
  osc.frequency.setValueAtTime(180, a.currentTime);
  osc.frequency.exponentialRampToValueAtTime(60, a.currentTime + 0.12);
  osc.connect(envelope(a, 0.4, 0.15));
  osc.start();
  osc.stop(a.currentTime + 0.16);
}

/** A goal: two triangle notes, E5 then A5. */
export function playGoal(): void {
  const a = audio();
  if (a === undefined) return;
  [659.25, 880].forEach((f, i) => {
    const osc = a.createOscillator();
    osc.type = 'triangle';
    osc.frequency.value = f;
    const g = a.createGain();
    const t = a.currentTime + i * 0.15;
    g.gain.setValueAtTime(0, a.currentTime);
    g.gain.setValueAtTime(0.25, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + 0.4);
    osc.connect(g).connect(a.destination);
    osc.start(t);
    osc.stop(t + 0.45);
  });
}
