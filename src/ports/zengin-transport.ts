import { closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Where request files go and result files come from (ZENGIN_DIR's outgoing/ and incoming/, or an
 * SFTP server). Files kept after import (archive/, quarantine/) stay local in ZENGIN_DIR.
 */
export interface ZenginTransport {
  /** Puts a file where the bank takes it: under a temporary name, then renamed (atomic). The same name again replaces it. */
  send(name: string, bytes: Buffer): Promise<void>;
  /** Names of the files the bank left for us. */
  received(): Promise<string[]>;
  read(name: string): Promise<Buffer>;
  /** Takes a received file away once it is kept in archive/ or quarantine/. */
  remove(name: string): Promise<void>;
}

export const zenginFolders = ["outgoing", "incoming", "archive", "quarantine"] as const;
export type ZenginFolder = (typeof zenginFolders)[number];

/** Names the exchange writes and reads: no path separators, no hidden or temporary files. */
export function isExchangeFileName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) && !name.endsWith(".tmp");
}

/** Writes a file durably and atomically: a temporary name, fsync, rename, fsync of the folder. */
export async function writeAtomically(dir: string, name: string, bytes: Buffer): Promise<void> {
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, `.${name}.tmp`);
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, join(dir, name));
  const folder = openSync(dir, "r");
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

/** The embedded default: ZENGIN_DIR/outgoing and ZENGIN_DIR/incoming on this machine. */
export class DirectoryTransport implements ZenginTransport {
  constructor(private readonly dir: string) {}

  send(name: string, bytes: Buffer): Promise<void> {
    return writeAtomically(join(this.dir, "outgoing"), name, bytes);
  }

  async received(): Promise<string[]> {
    const names = await readdir(join(this.dir, "incoming")).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [] as string[];
      throw error;
    });
    return names.filter(isExchangeFileName).sort();
  }

  read(name: string): Promise<Buffer> {
    return readFile(join(this.dir, "incoming", name));
  }

  remove(name: string): Promise<void> {
    return rm(join(this.dir, "incoming", name), { force: true });
  }
}

/** Keeps a copy in ZENGIN_DIR/archive or ZENGIN_DIR/quarantine (with NAME.reason.txt beside a quarantined file). */
export async function keepLocally(
  dir: string,
  folder: "archive" | "quarantine",
  name: string,
  bytes: Buffer,
  reason?: string,
): Promise<void> {
  const target = join(dir, folder);
  if (reason !== undefined) await writeAtomically(target, `${name}.reason.txt`, Buffer.from(`${reason}\n`));
  await writeAtomically(target, name, bytes);
}

/** The transport ZENGIN_SFTP_URL names, else the directory; ZENGIN_DIR's four folders exist afterwards. */
export function createZenginTransport(config: { dir: string; sftp?: { url: string } }): ZenginTransport {
  for (const folder of zenginFolders) mkdirSync(join(config.dir, folder), { recursive: true });
  if (config.sftp)
    throw new Error("ZENGIN_SFTP_URL: the SFTP transport is not available in this build; use the directory transport");
  return new DirectoryTransport(config.dir);
}

/** A file by name from ZENGIN_DIR's folders (outgoing, incoming, archive, quarantine), else as a path. */
export async function readZenginFile(dir: string, file: string): Promise<Buffer> {
  if (isExchangeFileName(file))
    for (const folder of zenginFolders) {
      const found = await readFile(join(dir, folder, file)).catch(() => undefined);
      if (found) return found;
    }
  return readFile(file);
}
