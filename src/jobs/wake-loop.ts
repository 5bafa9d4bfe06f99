/**
 * The doorbell-and-poll loop of a background worker: runs `work` at once when rung, and every
 * `pollMs` as a fallback. `work` answers true while there may be more to do now; a ring while it
 * runs makes it go round again, so no ring is lost.
 */
export class WakeLoop {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  #stopped = true;

  constructor(
    private readonly work: () => Promise<boolean>,
    private readonly onError: (error: unknown) => void,
    private readonly pollMs: number,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  wake(): void {
    if (this.#stopped) return;
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#loop(), ms);
    this.#timer.unref();
  }

  async #loop(): Promise<void> {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    try {
      do {
        this.#again = false;
        while (!this.#stopped && (await this.work())) {
          // keep going while there was work
        }
      } while (this.#again && !this.#stopped);
    } catch (error) {
      this.onError(error);
    } finally {
      this.#running = false;
      if (!this.#stopped) this.#schedule(this.pollMs);
    }
  }
}
