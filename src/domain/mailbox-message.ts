/** A message in a merchant's sandbox mailbox (SandboxService.ListMailbox): what would have been e-mailed. */
export interface MailboxMessageRecord {
  merchantId: string;
  /** The address, normalised (domain/customer.ts normalizeEmail). */
  to: string;
  subject: string;
  body: string;
  /** The one-time code the message carries ("" when none). */
  code: string;
  sentAt: Date;
}
