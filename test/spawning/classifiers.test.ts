// tickWindowClassifier: spawn ticks less than the window apart match, the closest wins; a server
// spawn later than that matches while the press may have run late (ranBy, from the input reports).
import { describe, expect, it } from 'vitest';
import { tickWindowClassifier, type PredictedSpawnInfo, type SpawnCandidate, type Tick } from '../../src/index.ts';

const candidate = (spawnTick: number, owner = 1): SpawnCandidate => ({ id: 9, type: 'grenade', owner, spawnTick: spawnTick as Tick, values: {} });
const predicted = (spawnTick: number, ranBy?: number, owner = 1): PredictedSpawnInfo => ({
  ghost: {} as PredictedSpawnInfo['ghost'], type: 'grenade', owner, spawnTick: spawnTick as Tick, ranBy: ranBy as Tick | undefined,
});

describe('tickWindowClassifier', () => {
  const classify = tickWindowClassifier(5);

  it('within the window: the closest tick of the same owner, the older on a tie', () => {
    const [a, b] = [predicted(100, 100), predicted(104, 104)];
    expect(classify(candidate(101), [a, b], 1)).toBe(a);
    expect(classify(candidate(103), [a, b], 1)).toBe(b);
    expect(classify(candidate(102), [a, b], 1)).toBe(a);
    expect(classify(candidate(101, 2), [a, b], 1)).toBeUndefined(); // another owner
    expect(classify(candidate(95), [a], 1)).toBeUndefined(); // 5 ticks early: outside
  });

  it('later than the window: only while the press may have run late (ranBy past the spawn tick, or not told yet)', () => {
    expect(classify(candidate(130), [predicted(100, 100)], 1)).toBeUndefined(); // the reports say it ran on time
    expect(classify(candidate(130), [predicted(100, 120)], 1)).toBeUndefined(); // by 120: 130 is past 120 + 5
    const ran = predicted(100, 126);
    expect(classify(candidate(130), [ran], 1)).toBe(ran);
    const unknown = predicted(100);
    expect(classify(candidate(130), [unknown], 1)).toBe(unknown);
    // Two that may both have run late: the closer one (a later press's twin goes to the later press).
    const later = predicted(120);
    expect(classify(candidate(130), [unknown, later], 1)).toBe(later);
    expect(classify(candidate(90), [unknown], 1)).toBeUndefined(); // earlier than the window: never
  });
});
