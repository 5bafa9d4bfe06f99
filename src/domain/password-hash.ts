import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Dashboard passwords are hashed with scrypt (memory-hard, in node:crypto, no native add-on).
 * N=2^15, r=8, p=3 is one of OWASP's recommended scrypt settings (32 MiB per hash). The parameters
 * travel in the stored string, so they can be raised later without invalidating old hashes.
 */
export interface PasswordHashCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The cost every production hash is made with (a sandbox may lower N for a test suite's speed). */
export const defaultPasswordHashCost: PasswordHashCost = Object.freeze({ N: 2 ** 15, r: 8, p: 3 });
/** The least N a sandbox may choose (PASSWORD_HASH_SCRYPT_N, docs/reference/configuration.md). */
export const leastSandboxScryptN = 2 ** 10;
const keyLength = 32;

/** A password a dashboard user may choose: long enough to resist guessing, short enough to hash cheaply. */
export const passwordLength = Object.freeze({ min: 12, max: 200 });

export function passwordProblem(password: string): string | undefined {
  if (password.length < passwordLength.min) return `the password must have at least ${passwordLength.min} characters`;
  if (password.length > passwordLength.max) return `the password must have at most ${passwordLength.max} characters`;
  return undefined;
}

function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; allow twice that.
  const scryptOptions: ScryptOptions = { ...options, maxmem: 256 * options.N * options.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, keyLength, scryptOptions, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$<salt base64url>$<hash base64url>` */
export async function hashPassword(password: string, cost: PasswordHashCost): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * Compared against when the e-mail is unknown, so a wrong e-mail takes as long as a wrong
 * password (no user-enumeration oracle): made at the deployment's cost, once, lazily.
 */
const decoyHashes = new Map<number, Promise<string>>();
export function decoyPasswordHash(cost: PasswordHashCost): Promise<string> {
  let decoy = decoyHashes.get(cost.N);
  if (!decoy) decoyHashes.set(cost.N, (decoy = hashPassword(randomBytes(16).toString("hex"), cost)));
  return decoy;
}
