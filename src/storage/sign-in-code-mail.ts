import type { Kysely } from "kysely";
import type { Database } from "./schema.js";
import { seal, unseal } from "./sealed.js";
import type { Tx } from "./transactor.js";

/**
 * The customer app's sign-in codes waiting for their e-mail (docs/reference/security.md#customer-app-sign-in):
 * written with the code for every address asked about, sent by a job, then forgotten. The code is
 * kept sealed until then.
 */
export interface SignInCodeMail {
  codeId: string;
  email: string;
  code: string;
  expiresAt: Date;
  createdAt: Date;
}

export async function insertSignInCodeMail(trx: Tx, mail: SignInCodeMail): Promise<void> {
  await trx
    .insertInto("sign_in_code_mail")
    .values({
      code_id: mail.codeId,
      email_normalized: mail.email,
      code_sealed: seal(mail.code),
      expires_at: mail.expiresAt.toISOString(),
      created_at: mail.createdAt.toISOString(),
    })
    .execute();
}

export async function findSignInCodeMail(db: Kysely<Database>, codeId: string): Promise<SignInCodeMail | undefined> {
  const row = await db.selectFrom("sign_in_code_mail").selectAll().where("code_id", "=", codeId).executeTakeFirst();
  return (
    row && {
      codeId: row.code_id,
      email: row.email_normalized,
      code: unseal(row.code_sealed),
      expiresAt: new Date(row.expires_at),
      createdAt: new Date(row.created_at),
    }
  );
}

/** Sent, or no longer worth sending: the sealed code goes. */
export async function deleteSignInCodeMail(db: Kysely<Database>, codeId: string): Promise<void> {
  await db.deleteFrom("sign_in_code_mail").where("code_id", "=", codeId).execute();
}
