// InputEvent under packet loss: a bot presses "fire" a fixed number of times while
// the link drops packets. The wire carries the running press count and every
// packet repeats the last inputs, so the server sees every press exactly once.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { defineProtocol, defineSystems, field, ghost, system, type ConditionedClientTransport } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, ServerGhosts, SplitView, StoryCanvas, useLoopbackScene } from './harness/react.tsx';
import type { LoopbackScene } from './harness/scene.ts';
import { reportFigure } from './harness/story-state.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), seen: field.u32() }, { modes: ['predicted', 'interpolated'] }) },
  input: { fire: field.event() },
  join: { name: field.string(8) },
});
type P = typeof protocol;

/** Each press moves the player one step right (wrapping), so presses are visible too. */
const systems = defineSystems(protocol, [
  system.shared('fire', (world, ctx) => {
    for (const p of world.query('player')) {
      const presses = ctx.input(p).fire;
      p.components.position.x = ((p.components.position.x + 4 + presses * 0.25) % 8) - 4;
    }
  }),
  system.server('count', (world, ctx) => {
    for (const p of world.query('player')) p.components.seen += ctx.input(p).fire;
  }),
]);

const nc = createNetcode(protocol, systems);

interface Args extends LinkArgs {
  /** Presses the bot makes, then stops. */
  presses: number;
  /** Presses per second. */
  rate: number;
}

function Presser({ args, sent, scene }: { args: Args; sent: { count: number }; scene: LoopbackScene<P> }): ReactNode {
  const { client } = nc.useNetcode();
  const me = nc.useLocalGhost('player');
  // On the scene's clock: in deterministic mode a press lands on the same frame every run.
  useEffect(() => {
    if (!me) return;
    return scene.every(1000 / args.rate, () => {
      if (sent.count >= args.presses) return;
      client.input.press('fire');
      sent.count++;
    });
  }, [me, client, args.presses, args.rate, sent, scene]);
  if (!me) return null;
  return (
    <VisualProxy ghost={me}>
      <mesh>
        <boxGeometry args={[0.8, 0.8, 0.8]} />
        <meshStandardMaterial color="#1e88e5" />
      </mesh>
      <Probe name="player" />
    </VisualProxy>
  );
}

function Counter({ scene, sent, transport }: { scene: LoopbackScene<P>; sent: { count: number }; transport: { current: ConditionedClientTransport | undefined } }): ReactNode {
  const [text, setText] = useState('');
  useEffect(() => {
    const id = setInterval(() => {
      const player = [...scene.server.world.query('player')][0];
      const seen = player?.components.seen ?? 0;
      const t = transport.current;
      const dropped = t ? t.up.stats.dropped + t.down.stats.dropped : 0;
      const upDropped = t?.up.stats.dropped ?? 0;
      reportFigure({ sent: sent.count, seen, droppedPackets: dropped, upDropped });
      setText(`presses sent ${sent.count} · seen by the server ${seen} · packets dropped: up ${upDropped}, down ${dropped - upDropped}`);
    }, 100);
    return () => clearInterval(id);
  }, [scene, sent, transport]);
  return <span data-testid="counter">{text}</span>;
}

function InputEventUnderLoss(args: Args): ReactNode {
  const [sent] = useState(() => ({ count: 0 }));
  const transport = useRef<ConditionedClientTransport | undefined>(undefined);
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => server.events.on('join', (c) => void server.spawn('player', { position: { x: -4, y: 0, z: 0 } }, { owner: c.networkId })),
  }));
  return (
    <SplitView
      description={
        <>
          <b>InputEvent under packet loss.</b> The bot presses <code>fire</code> {args.presses} times at {args.rate}/s while {Math.round(args.loss * 100)} % of packets are
          lost each way. <code>field.event()</code> sends the running press count and each packet repeats the last inputs, so the server sees every press exactly
          once: the two counters end equal.
        </>
      }
    >
      {scene && (
        <>
          <Panel title="Client — each press steps the box right" caption={<Counter scene={scene} sent={sent} transport={transport} />}>
            <nc.NetcodeProvider
              clock={scene.clientClock}
              transport={() => {
                const t = scene.transport(linkConditions(args))();
                transport.current = t;
                return t;
              }}
              join={{ name: 'bot' }}
            >
              <StoryCanvas>
                <NetcodeFrame now={scene.frameNow} />
                <Presser args={args} sent={sent} scene={scene} />
              </StoryCanvas>
            </nc.NetcodeProvider>
          </Panel>
          <Panel title="Server truth">
            <StoryCanvas>
              <ServerGhosts server={scene.server} type="player">
                {() => <ServerBox />}
              </ServerGhosts>
            </StoryCanvas>
          </Panel>
        </>
      )}
    </SplitView>
  );
}

function ServerBox(): ReactNode {
  return (
    <mesh>
      <boxGeometry args={[0.8, 0.8, 0.8]} />
      <meshStandardMaterial color="#8e24aa" />
    </mesh>
  );
}

const meta = {
  title: 'Inputs/InputEvent under packet loss',
  component: InputEventUnderLoss,
  render: (args) => <InputEventUnderLoss key={argsKey(args)} {...args} />,
  args: { ...linkArgs, loss: 0.2, presses: 40, rate: 12 },
  argTypes: {
    ...linkArgTypes,
    presses: { control: { type: 'range', min: 1, max: 200, step: 1 }, description: 'Presses the bot makes before it stops' },
    rate: { control: { type: 'range', min: 1, max: 60, step: 1 }, description: 'Presses per second' },
  },
  parameters: { docs: { description: { component: 'Presses sent vs. presses seen by the server, equal despite packet loss.' } } },
} satisfies Meta<typeof InputEventUnderLoss>;

export default meta;
type Story = StoryObj<typeof meta>;

export const InputEventStory: Story = { name: 'InputEvent under packet loss' };
