// Typed RPC plumbing shared by server and client: encoding a named RPC with its
// schema and size cap, and dispatching a received one to its handlers after
// validation. Unknown ids, wrong directions and oversized payloads are WireErrors
// that the caller turns into closing only the offending connection.

import type { BitReader } from './bits.ts';
import { HandlerError, NetcodeError, WireError } from './errors.ts';
import type { MessageEncoder } from './messages.ts';
import { payloadProblem } from './payload.ts';
import type { Protocol, RpcDirection, RpcEntry } from './protocol.ts';
import { MessageKind } from './wire.ts';

export type AnyHandler = (...args: never[]) => void;

export class RpcRegistry<H extends AnyHandler> {
  private readonly handlers = new Map<number, Set<H>>();

  constructor(
    private readonly protocol: Protocol,
    /** Direction of the RPCs this side receives. */
    private readonly receives: RpcDirection,
  ) {}

  /** Look up an RPC by name for sending or listening; throws a usage error naming the valid choices. */
  entry(name: string, direction: RpcDirection): RpcEntry {
    const entry = this.protocol.rpcByName.get(name);
    if (!entry) {
      const known = this.protocol.rpcList.map((r) => r.name).join(', ') || '(none)';
      throw new NetcodeError('usage', `react-netcode: unknown RPC "${name}". Declare it in defineProtocol({ rpcs }); known RPCs: ${known}.`);
    }
    if (entry.def.direction !== direction) {
      throw new NetcodeError('usage', `react-netcode: RPC "${name}" is declared ${entry.def.direction}; it cannot be used ${direction}.`);
    }
    return entry;
  }

  on(name: string, handler: H): () => void {
    const entry = this.entry(name, this.receives);
    let set = this.handlers.get(entry.id);
    if (!set) this.handlers.set(entry.id, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Encode RPC `name` with `payload` into a message. Throws a usage error if the payload does not match the schema or exceeds maxBytes. */
  encode(encoder: MessageEncoder, name: string, direction: RpcDirection, payload: unknown): Uint8Array {
    const entry = this.entry(name, direction);
    const problem = payloadProblem(entry.codec, payload);
    if (problem !== null) throw new NetcodeError('usage', `react-netcode: RPC "${name}" payload is invalid: ${problem}; pass a payload that fits the RPC's fields.`);
    const w = encoder.custom(MessageKind.Rpc);
    w.writeVarUint(entry.id);
    const start = w.bitLength;
    entry.codec.write(w, payload as never);
    const bytes = Math.ceil((w.bitLength - start) / 8);
    if (bytes > entry.def.maxBytes) {
      throw new NetcodeError('usage', `react-netcode: RPC "${name}" payload is ${bytes} bytes, over its maxBytes of ${entry.def.maxBytes}; send less or raise maxBytes in rpc.${direction}(…, { maxBytes }).`);
    }
    return w.toBytes();
  }

  /** Decode the body of an Rpc message (reader positioned after the kind byte). */
  decode(r: BitReader): { entry: RpcEntry; payload: unknown } {
    const id = r.readVarUint();
    const entry = this.protocol.rpcList[id];
    if (!entry || entry.def.direction !== this.receives) {
      throw new WireError('wire/unknown-message', `react-netcode: unknown RPC id ${id}.`);
    }
    const start = r.bitPosition;
    const payload = entry.codec.read(r);
    const bytes = Math.ceil((r.bitPosition - start) / 8);
    if (bytes > entry.def.maxBytes) {
      throw new WireError('wire/too-large', `react-netcode: RPC "${entry.name}" payload of ${bytes} bytes exceeds maxBytes ${entry.def.maxBytes}.`);
    }
    r.expectEnd();
    return { entry, payload };
  }

  handlersFor(entry: RpcEntry): ReadonlySet<H> | undefined {
    return this.handlers.get(entry.id);
  }

  /**
   * Call every handler of `entry` with `args`; one that throws is reported — to `onError` as a
   * HandlerError when given, else through `log` — and the others still run.
   */
  dispatch(entry: RpcEntry, args: Parameters<H>, log: (message: string) => void, onError?: (error: HandlerError) => void, tick = 0): void {
    const handlers = this.handlers.get(entry.id);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        (handler as (...a: Parameters<H>) => void)(...args);
      } catch (error) {
        if (onError) onError(new HandlerError(`handler of RPC "${entry.name}"`, tick, error));
        else log(`react-netcode: handler of RPC "${entry.name}" threw: ${String(error)}; fix the handler (the other handlers still ran).`);
      }
    }
  }
}
