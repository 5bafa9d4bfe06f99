/** Time is a port: the domain and flows read the clock they are given, never Date.now(). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** A clock that only moves when told to: tests jump 90 minutes or 3 days without sleeping. */
export class ManualClock implements Clock {
  #offsetMs = 0;
  readonly #base: () => number;

  /** With `start`, time stands still until advanced; without, it runs with the system clock plus the offset. */
  constructor(start?: Date) {
    const fixed = start?.getTime();
    this.#base = fixed === undefined ? () => Date.now() : () => fixed;
  }

  now(): Date {
    return new Date(this.#base() + this.#offsetMs);
  }

  advance(ms: number): Date {
    this.#offsetMs += ms;
    return this.now();
  }
}
