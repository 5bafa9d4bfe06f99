import { runCompiled, slot } from "./compiled-once.js";
import type { Kysely } from "kysely";
import { defaultKycReview, type KycReviewSettings } from "../domain/kyc.js";
import type { SimulatedBankMaintenance } from "../domain/simulated-bank-maintenance.js";
import type { Database } from "./schema.js";
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
): Promise<SimulatedBankMaintenance | undefined> {
  const [row] = await runCompiled(
    db,
    "bank settings of merchant",
    () => db.selectFrom("bank_settings").selectAll().where("merchant_id", "=", slot("merchant")),
    { merchant: merchantId },
  );
  return (
    row && {
      underMaintenance: row.under_maintenance === 1,
      maintenanceUntil: row.maintenance_until ? new Date(row.maintenance_until) : null,
    }
  );
}

export async function saveBankSettings(trx: Tx, merchantId: string, settings: SimulatedBankMaintenance): Promise<void> {
  const row = {
    under_maintenance: settings.underMaintenance ? 1 : 0,
    maintenance_until: settings.maintenanceUntil?.toISOString() ?? null,
  };
  await trx
    .insertInto("bank_settings")
    .values({ merchant_id: merchantId, ...row })
    .onConflict((oc) => oc.column("merchant_id").doUpdateSet(row))
    .execute();
}
