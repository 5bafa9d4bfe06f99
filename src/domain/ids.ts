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

/** An unguessable identifier: prefix + 26 base32 characters (130 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${randomToken(26)}`;
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
