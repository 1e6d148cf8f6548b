// The snapshot modules' usage errors (a caller broke a documented rule).
import { NetcodeError } from '../errors.ts';

export function usage(message: string): NetcodeError {
  return new NetcodeError('usage', `react-netcode: ${message}`);
}
