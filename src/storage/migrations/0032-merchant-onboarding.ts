import { sql, type Kysely } from "kysely";

/**
 * Merchants get an onboarding state (src/domain/onboarding.ts) in place of the flag nothing ever
 * cleared: merchants made so far (by `furikomi merchants create`) stay complete, a merchant the
 * flag marked incomplete stays incomplete.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("merchants")
    .addColumn("onboarding_state", "text", (c) => c.notNull().defaultTo("complete"))
    .execute();
  await sql`update merchants set onboarding_state = 'incomplete' where onboarding_complete = 0`.execute(db);
  await db.schema.alterTable("merchants").dropColumn("onboarding_complete").execute();
}
