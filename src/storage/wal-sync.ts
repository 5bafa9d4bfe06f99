import { open, type FileHandle } from "node:fs/promises";

/**
 * Makes SQLite commits durable without blocking the event loop. better-sqlite3 runs on the main
 * thread, so `synchronous = FULL` would stall every request for each commit's fsync. Instead the
 * database runs with `synchronous = NORMAL` (a commit reaches the OS, not the disk) and writers
 * wait for `sync()`, an fdatasync of the write-ahead log on libuv's thread pool, before they
 * acknowledge. Commits that land while one sync runs share the next one: group commit.
 */
export class WalSync {
  readonly #path: string;
  #file: Promise<FileHandle> | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(walPath: string) {
    this.#path = walPath;
  }

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    // A sync already running may have started before our commit: queue one more after it.
    this.#next ??= this.#running
      .catch(() => {})
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    return this.#next;
  }

  async close(): Promise<void> {
    await this.#next?.catch(() => {});
    await this.#running?.catch(() => {});
    await (await this.#file?.catch(() => undefined))?.close();
  }

  #start(): Promise<void> {
    const running = (async () => {
      this.#file ??= open(this.#path, "r+");
      await (await this.#file).datasync();
    })().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
