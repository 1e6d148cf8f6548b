// Public entry `react-netcode/testing`: the deterministic Stepper harness (server
// + N clients over the loopback on a virtual clock) and its building blocks.

export { createStepper, Stepper } from './stepper.ts';
export type { PeerClock, StepperClient, StepperClientOptions, StepperOptions, StepperPeer } from './stepper.ts';
export { LoopbackNetwork } from '../transport/loopback.ts';
export { conditionClient, LinkConditioner } from '../transport/conditioner.ts';
export type { ConditionedClientTransport, ConditionerOptions, LinkOptions } from '../transport/conditioner.ts';
export { conditionServer } from '../transport/condition-server.ts';
export type { ConditionedServerTransport, PeerLinkOptions, ServerConditionerOptions } from '../transport/condition-server.ts';
export { VirtualScheduler } from '../transport/scheduler.ts';
