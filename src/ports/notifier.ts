/** An e-mail to a customer (the two-factor code of the hosted page). */
export interface OutgoingMessage {
  merchantId: string;
  to: string;
  subject: string;
  body: string;
  /** The one-time code the message carries, so the sandbox mailbox can show it apart. */
  code?: string;
  sentAt: Date;
}

/**
 * Sends messages to customers. In sandbox mode it is the sandbox mailbox (readable through
 * SandboxService.ListMailbox); in production it is SMTP (SMTP_HOST, docs/reference/configuration.md). Called outside
 * database transactions (it may be slow); it throws when the message could not be handed over.
 */
export interface Notifier {
  send(message: OutgoingMessage): Promise<void>;
  /** Releases connections it keeps (at shutdown). */
  close?(): Promise<void>;
}
