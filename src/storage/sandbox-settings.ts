import type { Kysely } from "kysely";
import { defaultKycReview, type KycReviewSettings } from "../domain/kyc.js";
import type { BankSettingsTable, Database } from "./schema.js";
import type { Tx } from "./transactor.js";

export async function findKycReviewSettings(db: Kysely<Database>, merchantId: string): Promise<KycReviewSettings> {
  const row = await db
    .selectFrom("kyc_review_settings")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row ? { mode: row.mode, delaySeconds: row.delay_seconds } : defaultKycReview;
}

export async function saveKycReviewSettings(trx: Tx, merchantId: string, settings: KycReviewSettings): Promise<void> {
  await trx
    .insertInto("kyc_review_settings")
    .values({ merchant_id: merchantId, mode: settings.mode, delay_seconds: settings.delaySeconds })
    .onConflict((oc) =>
      oc.column("merchant_id").doUpdateSet({ mode: settings.mode, delay_seconds: settings.delaySeconds }),
    )
    .execute();
}

export async function findBankSettings(
  db: Kysely<Database>,
  merchantId: string,
): Promise<BankSettingsTable | undefined> {
  return db.selectFrom("bank_settings").selectAll().where("merchant_id", "=", merchantId).executeTakeFirst();
}

/** The whole simulated bank of one merchant under maintenance (until a time, or until switched off). */
export async function saveBankSettings(trx: Tx, settings: BankSettingsTable): Promise<void> {
  await trx
    .insertInto("bank_settings")
    .values(settings)
    .onConflict((oc) =>
      oc
        .column("merchant_id")
        .doUpdateSet({ under_maintenance: settings.under_maintenance, maintenance_until: settings.maintenance_until }),
    )
    .execute();
}
