import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { zenginResultOfCode } from "../domain/zengin-result.js";
import { zenginSettlementOf } from "../domain/zengin-settlement.js";
import type { AnsweredRecord } from "../domain/zengin-result-check.js";
import { findRefund } from "../storage/refunds.js";
import type { Tx } from "../storage/transactor.js";
import { chargesOfFile, itemsByCustomerNumber } from "../storage/zengin.js";
import { type ChargeAnswer, settleCharges } from "./charge-settlement.js";
import type { FlowContext } from "./flow-context.js";
import { recordRefundVerdict } from "./refund.js";

/**
 * The charges of a batch of a debit file's results, settled together through the one settlement
 * path (flows/charge-settlement.ts) in a few statements per batch: a file holds up to hundreds of
 * thousands. Results 3 and 4 also deactivate the contract (docs/reference/contract.md#zengin-results).
 */
export async function settleDebits(
  ctx: FlowContext,
  trx: Tx,
  fileId: string,
  records: readonly Pick<AnsweredRecord, "customerNumber" | "resultCode">[],
  now: Date,
): Promise<void> {
  const found = await chargesOfFile(trx, fileId, numbersOf(records));
  const charges = new Map(found.map((one) => [one.customerNumber, one]));
  const answers: ChargeAnswer[] = records.flatMap(({ customerNumber, resultCode }) => {
    const loaded = charges.get(customerNumber);
    if (!loaded) return [];
    return [{ charge: loaded.charge, request: loaded.request, settlement: zenginSettlementOf(resultCode ?? 0) }];
  });
  await settleCharges(ctx, trx, answers, now);
}

/**
 * Each refund of a batch of a transfer file's results settles or fails (flows/refund.ts). Returns
 * the refunds the bank says it paid although they are recorded as failed: never dropped silently,
 * the import reports them (docs/operations/zengin.md#alerts) and reconcile names them.
 */
export async function settleTransfers(
  ctx: FlowContext,
  trx: Tx,
  fileId: string,
  records: readonly AnsweredRecord[],
  now: Date,
): Promise<string[]> {
  const found = await itemsByCustomerNumber(trx, "zengin_transfers", fileId, numbersOf(records));
  const items = new Map(found.map((item) => [item.customerNumber, item]));
  const paidAfterFailure: string[] = [];
  for (const { customerNumber, resultCode } of records) {
    const refund = await findRefund(trx, items.get(customerNumber)?.reference ?? "");
    const result = zenginResultOfCode(resultCode ?? 0);
    if (refund?.status === RefundStatus.FAILED && !result) paidAfterFailure.push(refund.id);
    else if (refund)
      await recordRefundVerdict(
        ctx,
        trx,
        refund,
        result
          ? {
              ok: false,
              rootCause: `the bank could not make the transfer (Zengin result ${result.code}: ${result.meaning}, ${result.japanese})`,
            }
          : { ok: true },
        now,
      );
  }
  return paidAfterFailure;
}

function numbersOf(records: readonly Pick<AnsweredRecord, "customerNumber">[]): string[] {
  return records.map((record) => record.customerNumber);
}
