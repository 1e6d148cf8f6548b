// The browser client: React + react-three-fiber. The provider connects and joins; the
// Canvas steps the engine every frame (<NetcodeFrame/>) and each <VisualProxy> shows a
// ghost where the netcode says: your cube and balls predicted, the others interpolated.
import { Canvas } from '@react-three/fiber';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createNetcode } from 'react-netcode/react';
import { hideR3fClockWarning, NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { createSocketIoClientTransport } from 'react-netcode/socket-io';
import { ARENA, colourOf, protocol, systems } from './shared.ts';

hideR3fClockWarning(); // R3F's own THREE.Clock warns once per <Canvas> with three 0.187: not this game's

const { NetcodeProvider, useConnection, useGhosts, useInput, usePredictedSpawn, keyboardAxes, pressOnKey } = createNetcode(protocol, systems);
const controls = [keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }), pressOnKey('Space', 'shoot')];
const name = new URLSearchParams(location.search).get('name') ?? 'player';

function Scene() {
  useInput(controls);
  const players = useGhosts('player');
  const balls = useGhosts('ball');
  return (
    <>
      <NetcodeFrame />
      <ambientLight intensity={0.6} />
      <directionalLight position={[5, 10, 5]} />
      <mesh rotation-x={-Math.PI / 2}>
        <planeGeometry args={[ARENA * 2 + 1, ARENA * 2 + 1]} />
        <meshStandardMaterial color="#556b2f" />
      </mesh>
      {players.map((p) => (
        <VisualProxy key={p.handle} ghost={p}>
          <mesh position-y={0.5}>
            <boxGeometry />
            <meshStandardMaterial color={colourOf(p.components.colour)} />
          </mesh>
        </VisualProxy>
      ))}
      {balls.map((b) => (
        <VisualProxy key={b.handle} ghost={b}>
          <mesh>
            <sphereGeometry args={[0.25]} />
            <meshStandardMaterial color="white" />
          </mesh>
        </VisualProxy>
      ))}
    </>
  );
}

/** One line of status; its data-* attributes are what the starter's browser test reads. */
function Hud() {
  const { status } = useConnection();
  const players = useGhosts('player').length;
  const balls = useGhosts('ball').length;
  const { stats } = usePredictedSpawn('ball');
  return (
    <div id="hud" data-status={status} data-players={players} data-balls={balls} data-predicted={stats.predicted} data-matched={stats.matched}>
      {name} · {status} · {players} players · balls predicted {stats.predicted}, matched {stats.matched} · WASD to move, Space to shoot
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <NetcodeProvider transport={() => createSocketIoClientTransport(location.origin)} join={{ name }}>
      <Canvas camera={{ position: [0, 12, 10], fov: 50 }}>
        <Scene />
      </Canvas>
      <Hud />
    </NetcodeProvider>
  </StrictMode>,
);
