// Transports shipped with the core: the in-memory loopback network, the link
// conditioner decorator and the schedulers (virtual and real time) they run on.

export { VirtualScheduler, realTimeScheduler } from './scheduler.ts';
export { LoopbackNetwork } from './loopback.ts';
export type { LoopbackStats } from './loopback.ts';
export { LinkConditioner, conditionClient } from './conditioner.ts';
export type { LinkOptions, LinkStats, ConditionerOptions, ConditionedClientTransport } from './conditioner.ts';
export { conditionServer } from './condition-server.ts';
export type { ConditionedServerTransport, PeerLinkOptions, ServerConditionerOptions } from './condition-server.ts';
