import { closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import SftpClient from "ssh2-sftp-client";
import { limits } from "../domain/limits.js";

/**
 * Where request files go and result files come from (ZENGIN_DIR's outgoing/ and incoming/, or an
 * SFTP server). Files kept after import (archive/, quarantine/) stay local in ZENGIN_DIR.
 */
export interface ZenginTransport {
  /**
   * Puts a file where the bank takes it: under a temporary name, then renamed (atomic). The same
   * name again replaces it. The bytes may come in chunks (a request file is written as it is read).
   */
  send(name: string, bytes: FileBytes): Promise<void>;
  /** Names of the files the bank left for us. */
  received(): Promise<string[]>;
  read(name: string): Promise<Buffer>;
  /** Takes a received file away once it is kept in archive/ or quarantine/. */
  remove(name: string): Promise<void>;
}

/** A file's bytes, whole or as chunks in order. */
export type FileBytes = Buffer | AsyncIterable<Buffer>;

export const zenginFolders = ["outgoing", "incoming", "archive", "quarantine"] as const;

/** Names the exchange writes and reads: no path separators, no hidden or temporary files. */
export function isExchangeFileName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) && !name.endsWith(".tmp");
}

/**
 * Every file a bank may have left in incoming/: all but hidden and temporary ones (an upload in
 * progress). A name that is not an exchange name (`kekka (1).txt`, `振替結果.txt`) is still
 * listed, so the cycle reports it (docs/operations/zengin.md#unexpected-file-names); only a name
 * that could leave the folder is never listed.
 */
export function isReceivedFileName(name: string): boolean {
  return !name.startsWith(".") && !name.endsWith(".tmp") && !/[/\\\0]/.test(name) && name.length <= 255;
}

/** Zengin files carry customers' accounts in clear (the bank's format): ours are the service user's alone (docs/operations/zengin.md#protecting-zengin_dir). */
const privateFolder = 0o700;
const privateFile = 0o600;

/** Writes a file durably and atomically: a temporary name, fsync, rename, fsync of the folder. */
export async function writeAtomically(dir: string, name: string, bytes: FileBytes): Promise<void> {
  await mkdir(dir, { recursive: true, mode: privateFolder });
  // Unique: two instances finishing the same file each write their own, then rename (same bytes).
  const temporary = join(dir, `.${name}.${randomUUID()}.tmp`);
  const handle = await open(temporary, "w", privateFile);
  try {
    if (Buffer.isBuffer(bytes)) await handle.writeFile(bytes);
    else for await (const chunk of bytes) await handle.write(chunk);
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

  send(name: string, bytes: FileBytes): Promise<void> {
    return writeAtomically(join(this.dir, "outgoing"), name, bytes);
  }

  async received(): Promise<string[]> {
    const names = await readdir(join(this.dir, "incoming")).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [] as string[];
      throw error;
    });
    return names.filter(isReceivedFileName).sort();
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
export function createZenginTransport(config: { dir: string; sftp?: SftpSettings }): ZenginTransport {
  for (const folder of zenginFolders) mkdirSync(join(config.dir, folder), { recursive: true, mode: privateFolder });
  return config.sftp ? new SftpTransport(config.sftp) : new DirectoryTransport(config.dir);
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

/** ZENGIN_SFTP_URL, ZENGIN_SFTP_KEY_FILE, ZENGIN_SFTP_HOST_KEY. */
export interface SftpSettings {
  readonly url: string;
  readonly keyFile: string;
  /** The server's public key as known_hosts writes it ("ssh-ed25519 AAAA…"), or its "SHA256:…" fingerprint. */
  readonly hostKey: string;
}

/** True when the key the server showed is the pinned one. */
export function matchesPinnedHostKey(pinned: string, key: Buffer): boolean {
  const trimmed = pinned.trim();
  if (trimmed.startsWith("SHA256:"))
    return trimmed.slice(7).replace(/=+$/, "") === createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
  const blob = trimmed.split(/\s+/).find((part) => /^AAAA[A-Za-z0-9+/=]+$/.test(part));
  return blob !== undefined && Buffer.from(blob, "base64").equals(key);
}

/**
 * The bank's SFTP server: ZENGIN_SFTP_URL sftp://user@host:port/path, request files into
 * path/outgoing (uploaded under a temporary name, then renamed over the final one with OpenSSH's
 * posix-rename), results from path/incoming. The server must show the pinned host key; the
 * client signs in with the private key in ZENGIN_SFTP_KEY_FILE. One connection per operation
 * (the cycle runs once a minute).
 */
export class SftpTransport implements ZenginTransport {
  readonly #target: URL;
  readonly #root: string;

  constructor(private readonly settings: SftpSettings) {
    this.#target = new URL(settings.url);
    if (this.#target.protocol !== "sftp:") throw new Error("ZENGIN_SFTP_URL must be sftp://user@host:port/path");
    this.#root = decodeURIComponent(this.#target.pathname).replace(/\/$/, "") || ".";
  }

  async #session<T>(work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = new SftpClient("zengin");
    await client.connect({
      host: this.#target.hostname,
      port: Number(this.#target.port || 22),
      username: decodeURIComponent(this.#target.username),
      privateKey: await readFile(this.settings.keyFile),
      hostVerifier: (key: Buffer) => matchesPinnedHostKey(this.settings.hostKey, key),
      readyTimeout: limits.zenginSftpReadyTimeoutMs,
    });
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  send(name: string, bytes: FileBytes): Promise<void> {
    return this.#session(async (client) => {
      const temporary = `${this.#root}/outgoing/.${name}.${randomUUID()}.tmp`;
      await client.put(Buffer.isBuffer(bytes) ? bytes : Readable.from(bytes), temporary);
      await client.posixRename(temporary, `${this.#root}/outgoing/${name}`);
    });
  }

  received(): Promise<string[]> {
    return this.#session(async (client) =>
      (await client.list(`${this.#root}/incoming`))
        .filter((entry) => entry.type === "-" && isReceivedFileName(entry.name))
        .map((entry) => entry.name)
        .sort(),
    );
  }

  read(name: string): Promise<Buffer> {
    return this.#session(async (client) => (await client.get(`${this.#root}/incoming/${name}`)) as Buffer);
  }

  remove(name: string): Promise<void> {
    return this.#session(async (client) => {
      await client.delete(`${this.#root}/incoming/${name}`, true);
    });
  }
}
