import { createCipheriv, createDecipheriv, createHash, createHmac, randomFillSync } from "node:crypto";

/**
 * Secrets the service must read back (webhook signing secrets, TOTP seeds, the sandbox mailbox's
 * codes) are stored sealed: AES-256-GCM under SECRETS_KEY, so a copied database file or a
 * backup does not hand them out. Secrets it only compares (API keys, one-time codes, passwords,
 * session tokens) are stored as hashes instead. A value written before sealing existed reads as
 * it is and is sealed when next written. Sealed values that must be found by equality (a bank
 * account by its numbers) are looked up by a keyed hash (`keyedHash`), never by their clear text.
 */
const prefix = "sealed:v1:";

// Without SECRETS_KEY (a development sandbox) the key is a fixed one: still no secret in clear
// text in the file, but anyone with the source can open it. Production sets SECRETS_KEY.
const developmentKey = createHash("sha256").update("furikomi development sealing key").digest();
let key: Buffer = developmentKey;
let previousKeys: Buffer[] = [];

const keyOf = (secret: string | undefined) => (secret ? createHash("sha256").update(secret).digest() : developmentKey);

/**
 * Seals with SECRETS_KEY (any string; 32 random bytes in base64 recommended; unset: the
 * development key) and still opens what the previous keys sealed (SECRETS_KEY_PREVIOUS, comma
 * separated; an empty entry stands for the development key), so the key can be rotated.
 */
export function useSealingKey(secret: string | undefined, previous: readonly string[] = []): void {
  key = keyOf(secret);
  previousKeys = previous.map(keyOf);
  hashKeys = [key, ...previousKeys].map(hashKeyOf);
}

export function seal(plain: string): string {
  if (plain === "") return "";
  const iv = freshIv();
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return prefix + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

// Nonces drawn from the CSPRNG 4 KiB at a time, each 12 bytes used once: a debit date seals an
// item per subscription, and a call into the CSPRNG per item cost as much as the sealing.
const ivPool = Buffer.alloc(12 * 341);
let ivNext = ivPool.length;

function freshIv(): Buffer {
  if (ivNext === ivPool.length) {
    randomFillSync(ivPool);
    ivNext = 0;
  }
  ivNext += 12;
  return ivPool.subarray(ivNext - 12, ivNext);
}

export function unseal(stored: string): string {
  if (!stored.startsWith(prefix)) return stored;
  const raw = Buffer.from(stored.slice(prefix.length), "base64");
  for (const candidate of [key, ...previousKeys]) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", candidate, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch {
      // sealed under another key: try the next
    }
  }
  throw new Error("a stored secret cannot be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS");
}

/** The HMAC key of keyed hashes, derived from a sealing key (so one secret, SECRETS_KEY, covers both). */
function hashKeyOf(sealingKey: Buffer): Buffer {
  return createHmac("sha256", sealingKey).update("furikomi keyed hash v1").digest();
}

// Derived once per key, not per hash: a result file's import hashes every record's account.
let hashKeys: Buffer[] = [hashKeyOf(developmentKey)];

/**
 * HMAC-SHA256 (hex) of `value` under SECRETS_KEY: equality look-ups and evidence of sealed values
 * (a bank account's numbers) without their clear text, and without a plain hash that a copied
 * database could be searched against (7-digit account numbers are few).
 */
export function keyedHash(value: string): string {
  return createHmac("sha256", hashKeys[0]).update(value, "utf8").digest("hex");
}

/** `keyedHash` under the current key and each previous one: a look-up still finds what was hashed before a rotation (until `secrets reseal`). */
export function keyedHashes(value: string): string[] {
  return hashKeys.map((k) => createHmac("sha256", k).update(value, "utf8").digest("hex"));
}
