// CloseCode is a closed union an app can switch on exhaustively; ClientState and the React
// connection carry it (the React one adds 'init-failed', the provider's own).
import { describe, expectTypeOf, it } from 'vitest';
import type { ClientState, CloseCode } from '../../src/index.ts';
import type { Connection } from '../../src/react/index.ts';

/** What a game might do for each code: the switch compiles only while it covers every code. */
function advice(code: CloseCode): string {
  switch (code) {
    case 'left': return '';
    case 'server-closed': return 'show the reason';
    case 'refused': return 'try later';
    case 'mismatch': return 'reload';
    case 'protocol-error': return 'report';
    case 'connect-failed': return 'retry';
    case 'lost': return 'connect again';
    case 'dropped': return 'reconnecting…';
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

describe('CloseCode', () => {
  it('is the union of the eight codes, carried by ClientState and by useConnection()', () => {
    expectTypeOf(advice).parameter(0).toEqualTypeOf<'left' | 'server-closed' | 'refused' | 'mismatch' | 'protocol-error' | 'connect-failed' | 'lost' | 'dropped'>();
    expectTypeOf<ClientState['closeCode']>().toEqualTypeOf<CloseCode | undefined>();
    expectTypeOf<Connection['closeCode']>().toEqualTypeOf<CloseCode | 'init-failed' | undefined>();
    // @ts-expect-error not a code
    advice('kicked');
  });
});
