// An error boundary for the R3F tests: render errors (the documented `react-netcode:`
// usage errors) are handed to `onError` instead of escaping the test renderer.

import { Component, type ReactNode } from 'react';

export interface CatchProps {
  onError: (error: unknown) => void;
  children?: ReactNode;
}

/** Renders nothing once a child threw; the error goes to `onError`. */
export class Catch extends Component<CatchProps, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    this.props.onError(error);
  }

  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}
