// The demo client's engine options (Session.tsx's NetcodeProvider clientOptions), in a module
// of their own so that the Stepper tests (test/demo/jumps.test.ts, contact.test.ts) run the
// client the page runs.

export const DEMO_CLIENT_OPTIONS = {
  /** The 300 ms ± 50 ms preset with 10 % loss can delay a grenade's spawn record: give predicted grenades 0.5 s to be matched. */
  spawning: { graceTicks: 30 },
  /**
   * Corrections slide over 500 ms and only those over 3 m snap. Blasts are server-only, so a
   * predicted ball or player caught in one is corrected by up to ≈ 2.1 m at a 150 ms round
   * trip (10 m/s for the lead of a round trip and a frame). The correction decays linearly, a
   * share frameMs / smoothingMs of it per frame: with the library's 100 ms and 2 m a 20 fps
   * page drew that as a 1.9 m snap, and a 1 m contact correction as 0.5 m in a frame; at
   * 500 ms a 3 m correction moves 0.3 m per 20 fps frame, the measured 2.1 m 0.16 m.
   */
  prediction: { correction: { smoothingMs: 500, teleportDistance: 3 } },
} as const;
