import { validationFailure } from "./payment-failure.js";

/** How customers reach a merchant about a direct debit; shown on the consent screen. Empty: not given. */
export interface SupportContact {
  readonly email: string;
  readonly phone: string;
  readonly url: string;
}

/**
 * The same rules the dashboard's request declares (dashboard_service.proto), for the CLI too: an
 * e-mail address, a phone number of digits, spaces, + ( ) and -, an https:// URL.
 */
export function requireSupportContact(contact: SupportContact): SupportContact {
  const trimmed = { email: contact.email.trim(), phone: contact.phone.trim(), url: contact.url.trim() };
  if (trimmed.email && (trimmed.email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(trimmed.email)))
    throw validationFailure("email", "must be an e-mail address");
  if (trimmed.phone.length > 32 || !/^[0-9+ ()-]*$/.test(trimmed.phone))
    throw validationFailure("phone", "use digits, spaces, + ( ) and - only");
  if (trimmed.url && (trimmed.url.length > 2048 || !trimmed.url.startsWith("https://")))
    throw validationFailure("url", "must be an https:// URL");
  return trimmed;
}
