import { randomBytes } from "node:crypto";

/** The identifier prefixes (docs/reference/contract.md#identifiers). */
export type IdPrefix =
  | "usr"
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
  | "man";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** An unguessable identifier: prefix + 26 base32 characters (130 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${randomToken(26)}`;
}

/** Random base32 text, for ids and payment-link tokens. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[bytes[i] & 31];
  return out;
}
