import { normalizeEmail } from "../domain/customer.js";
import { insertMailboxMessage } from "../storage/mailbox.js";
import type { Transactor } from "../storage/transactor.js";
import type { Notifier, OutgoingMessage } from "./notifier.js";

/** The sandbox's notifier: every message lands in the merchant's mailbox table, nothing leaves. */
export class SandboxMailbox implements Notifier {
  constructor(private readonly tx: Transactor) {}

  async send(message: OutgoingMessage): Promise<void> {
    await this.tx.write((trx) =>
      insertMailboxMessage(trx, {
        merchant_id: message.merchantId,
        to_email: normalizeEmail(message.to),
        subject: message.subject,
        body: message.body,
        code: message.code ?? "",
        sent_at: message.sentAt.toISOString(),
      }),
    );
  }
}
