import { randomFillSync } from "node:crypto";

/** The identifier prefixes (docs/reference/contract.md#identifiers). */
export type IdPrefix =
  | "usr"
  | "inv"
  | "aud"
  | "tch"
  | "cus"
  | "con"
  | "chg"
  | "trx"
  | "rfd"
  | "mwh"
  | "pwf"
  | "mer"
  | "key"
  | "plt"
  | "job"
  | "bat"
  | "otc"
  | "bvr"
  | "man"
  | "stp"
  | "pln"
  | "sub"
  // A customer's approved bank account (storage/bank-accounts.ts); internal, never shown.
  | "bac";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/**
 * An unguessable identifier: prefix + 26 base32 characters laid out as a ULID, 10 for the
 * milliseconds of the machine's clock, then 16 random (80 bits). The time part keeps each table's
 * and index's new keys together at the right edge of its B-tree: fully random keys landed every
 * insert on another page, and a debit date of 20,000 subscriptions spent twice as long in its
 * commits (docs/architecture.md#identifiers). It reads the machine's clock, not the domain's: the
 * time part orders storage and means nothing to the domain (a test clock moved ahead changes no id).
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${timePart(Date.now())}${randomToken(16)}`;
}

/** Milliseconds as 10 base32 characters, most significant first, so ids sort by their time. */
export function timePart(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = alphabet[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** Random base32 text, for ids and payment-link tokens. */
export function randomToken(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomByte() & 31];
  return out;
}

// Random bytes drawn 4 KiB at a time, each used once: a result file's 100,000 events need
// 100,000 ids, and one call into the CSPRNG per id cost more than writing them.
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++];
}
