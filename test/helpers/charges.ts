import { ApiSource, ChargeStatus, type ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { type NewChargeInput, newPendingCharge, transitionCharge } from "../../src/domain/charge.js";
import { newId } from "../../src/domain/ids.js";
import { chargeToRow } from "../../src/storage/records.js";
import type { ChargeTable } from "../../src/storage/schema.js";
import type { Clock } from "../../src/ports/clock.js";
import type { Transactor } from "../../src/storage/transactor.js";

/** The statuses a fixture can start in: those one transition from PENDING reaches with a coherent row. */
export type FixtureChargeStatus =
  | ChargeStatus.PENDING
  | ChargeStatus.WAITING_EKYC
  | ChargeStatus.SUCCESS
  | ChargeStatus.FAILURE;

export type ChargeFixture = Partial<NewChargeInput> & {
  merchantId: string;
  /** SUCCESS unless told. */
  status?: FixtureChargeStatus;
  /** For FAILURE: the ErrorType (PAYMENT_CHARGE_FAILED unless told) and its message. */
  failure?: { errorType: ErrorType; message?: string };
};

/**
 * A `charges` row for a suite that writes straight to the database (its subject is a read path or
 * the storage itself): the domain's `newPendingCharge`, moved to `status` by `transitionCharge`, mapped
 * by the storage row mapper, so no test spells a status or an API source as a number. Defaults: a new
 * id, off-session (sync), 1,200 yen, no customer.
 */
export function chargeRow(fixture: ChargeFixture, now: Date): ChargeTable {
  const { status = ChargeStatus.SUCCESS, failure, ...input } = fixture;
  const pending = newPendingCharge(
    {
      id: newId("trx"),
      customerId: null,
      contractId: null,
      onSessionId: null,
      requestId: null,
      apiSource: ApiSource.OFF_SESSION_SYNC,
      amount: 1200,
      description: "",
      metadata: {},
      ...input,
    },
    now,
  );
  return chargeToRow(status === ChargeStatus.PENDING ? pending : transitionCharge(pending, status, now, failure));
}

/** Writes `chargeRow(fixture, now)` (a TestServer will do, or any storage with a clock); returns the charge id. */
export async function seedCharge(
  server: { clock: Clock; ctx: { tx: Transactor } },
  fixture: ChargeFixture,
): Promise<string> {
  const row = chargeRow(fixture, server.clock.now());
  await server.ctx.tx.write((trx) => trx.insertInto("charges").values(row).execute());
  return row.id;
}
