import type { Kysely } from "kysely";
import { normalizeEmail } from "../domain/customer.js";
import type { MailboxMessageRecord } from "../domain/mailbox-message.js";
import type { Database } from "./schema.js";
import { seal, unseal } from "./sealed.js";

export async function insertMailboxMessage(db: Kysely<Database>, message: MailboxMessageRecord): Promise<void> {
  // The body and the code carry the one-time code: sealed like every secret read back.
  await db
    .insertInto("mailbox")
    .values({
      merchant_id: message.merchantId,
      to_email: message.to,
      subject: message.subject,
      body: seal(message.body),
      code: seal(message.code),
      sent_at: message.sentAt.toISOString(),
    })
    .execute();
}

/** The merchant's sandbox mailbox, newest first, optionally only messages to one address. */
export async function listMailbox(
  db: Kysely<Database>,
  merchantId: string,
  options: { email?: string; limit: number },
): Promise<MailboxMessageRecord[]> {
  let query = db
    .selectFrom("mailbox")
    .select(["merchant_id", "to_email", "subject", "body", "code", "sent_at"])
    .where("merchant_id", "=", merchantId);
  if (options.email) query = query.where("to_email", "=", normalizeEmail(options.email));
  const rows = await query.orderBy("id", "desc").limit(options.limit).execute();
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    to: row.to_email,
    subject: row.subject,
    body: unseal(row.body),
    code: unseal(row.code),
    sentAt: new Date(row.sent_at),
  }));
}
