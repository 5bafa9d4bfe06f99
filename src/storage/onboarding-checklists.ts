import type { Kysely } from "kysely";
import type { BusinessDetails } from "../domain/onboarding-checklist.js";
import type { Database } from "./schema.js";
import type { Tx } from "./transactor.js";

/** What a merchant saved of its going-live checklist (the rest of the checklist is read where it lives). */
export interface SavedChecklist {
  business: BusinessDetails | undefined;
  webhookTestEventId: string;
  termsVersion: string;
  termsAcceptedAt: Date | null;
  sentBackReason: string;
}

export const emptyChecklist: SavedChecklist = Object.freeze({
  business: undefined,
  webhookTestEventId: "",
  termsVersion: "",
  termsAcceptedAt: null,
  sentBackReason: "",
});

export async function findSavedChecklist(db: Kysely<Database>, merchantId: string): Promise<SavedChecklist> {
  const row = await db
    .selectFrom("onboarding_checklists")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  if (!row) return emptyChecklist;
  return {
    business: row.business_json ? businessOf(row.business_json) : undefined,
    webhookTestEventId: row.webhook_test_event_id,
    termsVersion: row.terms_version,
    termsAcceptedAt: row.terms_accepted_at ? new Date(row.terms_accepted_at) : null,
    sentBackReason: row.sent_back_reason,
  };
}

/** The saved details; those saved before the 登録番号 existed have none. */
function businessOf(json: string): BusinessDetails {
  return { invoiceRegistrationNumber: "", ...(JSON.parse(json) as Partial<BusinessDetails>) } as BusinessDetails;
}

/** Saves the fields given (the others stay), creating the merchant's row on its first save. */
export async function saveChecklist(
  trx: Tx,
  merchantId: string,
  changes: Partial<SavedChecklist> & { termsAcceptedBy?: string },
  now: Date,
): Promise<void> {
  const columns = {
    ...(changes.business !== undefined ? { business_json: JSON.stringify(changes.business) } : {}),
    ...(changes.webhookTestEventId !== undefined ? { webhook_test_event_id: changes.webhookTestEventId } : {}),
    ...(changes.termsVersion !== undefined ? { terms_version: changes.termsVersion } : {}),
    ...(changes.termsAcceptedAt !== undefined
      ? { terms_accepted_at: changes.termsAcceptedAt?.toISOString() ?? null }
      : {}),
    ...(changes.termsAcceptedBy !== undefined ? { terms_accepted_by: changes.termsAcceptedBy } : {}),
    ...(changes.sentBackReason !== undefined ? { sent_back_reason: changes.sentBackReason } : {}),
    updated_at: now.toISOString(),
  };
  await trx
    .insertInto("onboarding_checklists")
    .values({ merchant_id: merchantId, ...columns })
    .onConflict((conflict) => conflict.column("merchant_id").doUpdateSet(columns))
    .execute();
}

/** Merchants in a state, oldest first (the operator's review queue). */
export async function merchantIdsInState(db: Kysely<Database>, state: string): Promise<string[]> {
  const rows = await db
    .selectFrom("merchants")
    .select("id")
    .where("onboarding_state", "=", state)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.id);
}
