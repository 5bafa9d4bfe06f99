/** E-mails compare case-insensitively after trimming (docs/reference/contract.md#email-reuse). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The profile fields a merchant (buyer group) or the customer (KYC form) can supply. */
export interface CustomerProfile {
  name: string;
  katakanaLastName: string;
  katakanaFirstName: string;
  address: string;
  birthDate: string;
  gender: string;
}

/**
 * docs/reference/contract.md#email-reuse — the supplied fields update the existing record. A field left
 * empty keeps its value; supplied metadata replaces the old metadata.
 */
export function withSuppliedFields<
  T extends CustomerProfile & { email: string; metadata: Record<string, string>; updatedAt: Date },
>(
  customer: T,
  supplied: Partial<CustomerProfile> & { email?: string; metadata?: Record<string, string> },
  now: Date,
): T {
  const next: T = { ...customer, updatedAt: now };
  for (const field of ["name", "katakanaLastName", "katakanaFirstName", "address", "birthDate", "gender"] as const) {
    const value = supplied[field]?.trim();
    if (value) next[field] = value;
  }
  const email = supplied.email?.trim();
  if (email) next.email = email;
  if (supplied.metadata && Object.keys(supplied.metadata).length > 0) next.metadata = { ...supplied.metadata };
  return next;
}
