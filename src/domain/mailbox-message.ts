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

/**
 * The sandbox mailbox of no merchant (its `merchantId`): messages meant for no merchant's eyes, the
 * customer app's sign-in codes and the team's links, which no merchant's key lists
 * (docs/guide/sandbox.md#the-mailbox).
 */
export const operatorMailbox = "";
