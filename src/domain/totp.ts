import { Secret, TOTP } from "otpauth";

/** RFC 6238 as every authenticator app speaks it: SHA-1, 6 digits, 30-second steps. */
const periodSeconds = 30;
const digits = 6;

/** A new shared secret (160 bits, as RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app scans (as a QR code) or takes typed in. */
export function totpUri(secret: string, account: string, issuer = "furikomi"): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits,
    period: periodSeconds,
  }).toString();
}

export type TotpVerdict = { accepted: true; step: number } | { accepted: false; replayed: boolean };

/**
 * Checks a code at `now`, allowing one step of clock drift either way. A code is accepted only
 * if its time-step is later than the last accepted one (`lastStep`), so a code — or an older
 * code still inside the drift window — is never accepted twice (RFC 6238 §5.2).
 */
export function verifyTotpCode(secret: string, code: string, now: Date, lastStep: number): TotpVerdict {
  const timestamp = now.getTime();
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits,
    period: periodSeconds,
    timestamp,
    window: 1,
  });
  if (delta === null) return { accepted: false, replayed: false };
  const step = TOTP.counter({ period: periodSeconds, timestamp }) + delta;
  if (step <= lastStep) return { accepted: false, replayed: true };
  return { accepted: true, step };
}
