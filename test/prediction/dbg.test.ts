import { it } from 'vitest';
import { createStepper } from '../../src/testing/index.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';
it('dbg', () => {
  const bad = { latencyMs: 75, jitterMs: 20, loss: 0.05 };
  const s = createStepper({ protocol: runnerProtocol, systems: runnerSystems, seed: 9, log: () => {}, clients: [{ link: { up: bad, down: bad } }] });
  s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  let lastLate = 0;
  for (let i = 0; i < 65 * 60; i++) {
    s.advance(1000 / 60);
    const st = s.server.inputStats(s.server.connections.get(1)!)!;
    if (st.late !== lastLate || st.missing > 0 && i % 600 === 0) {
      lastLate = st.late;
      console.log(`t=${(s.now/1000).toFixed(2)} late=${st.late} missing=${st.missing} rep=${st.repeated} neu=${st.neutral} slack=${client.clock.slackTicks.toFixed(2)} jitter=${client.clock.jitterMs.toFixed(1)} rtt=${client.clock.rttMs.toFixed(1)} lead=${(client.clock.predictedTime - s.server.currentTick).toFixed(2)} scale=${client.clock.timeScale.toFixed(3)}`);
    }
  }
});
