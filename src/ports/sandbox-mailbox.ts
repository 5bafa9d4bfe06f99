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
        merchantId: message.merchantId,
        to: normalizeEmail(message.to),
        subject: message.subject,
        body: message.body,
        code: message.code ?? "",
        sentAt: message.sentAt,
      }),
    );
  }
}
