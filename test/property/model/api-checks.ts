import { expect } from "vitest";
import {
  ChargeStatus,
  ContractStatus,
  PaymentAuthorizationStatus,
  RefundStatus,
} from "../../../gen/payments/v1/enums_pb.js";
import type { BankAccount } from "../../../gen/payments/v1/sandbox_service_pb.js";
import {
  chargeOf,
  refundableAmount,
  refundedAmount,
  type Model,
  type ModelAccount,
  type ModelCustomer,
} from "./model-state.js";
import type { RealSystem } from "./real-system.js";
import { chargeRefundsShown } from "../../../src/flows/status.js";

/** GetCharge (and GetAsyncPaymentRequest) against the model's charge and its refunds. */
export async function expectCharge(real: RealSystem, model: Model, chargeId: string): Promise<void> {
  const expected = chargeOf(model, chargeId);
  const { charge } = await real.pay.getCharge({ charge: chargeId });
  // GetCharge carries the most recent refunds only, and says when there are more.
  const refunds = model.refunds.filter((r) => r.chargeId === chargeId);
  expect({
    status: ChargeStatus[charge!.chargeStatus],
    amount: charge!.finalAmount,
    error: charge!.error?.code,
    refunded: charge!.refundedAmount,
    refundable: charge!.refundableAmount,
    refunds: charge!.refunds.map((r) => ({
      id: r.refundId,
      amount: r.amount,
      status: r.status,
      cancellation: r.cancellation,
    })),
    refundsTruncated: charge!.refundsTruncated,
  }).toEqual({
    status: ChargeStatus[expected.status],
    amount: expected.amount,
    error: expected.status === ChargeStatus.FAILURE ? expected.errorType : undefined,
    refunded: refundedAmount(expected),
    refundable: refundableAmount(expected),
    refunds: refunds
      .slice(-chargeRefundsShown)
      .map((r) => ({ id: r.id, amount: r.amount, status: r.status, cancellation: r.cancellation })),
    refundsTruncated: refunds.length > chargeRefundsShown,
  });
  if (expected.requestId) {
    const { request } = await real.pay.getAsyncPaymentRequest({ requestId: expected.requestId });
    expect({ chargeId: request!.chargeId, status: request!.status, attempts: request!.attempts }).toEqual({
      chargeId,
      status: expected.requestStatus,
      attempts: expected.jobAttempts,
    });
  }
}

/** GetCustomer, GetContract and the simulated accounts (the contract's and any other) with their ledgers. */
export async function expectCustomer(real: RealSystem, model: Model, customer: ModelCustomer): Promise<void> {
  const [{ customer: seen }, { contract }, { account, accounts }] = await Promise.all([
    real.pay.getCustomer({ customer: customer.id }),
    real.pay.getContract({ contract: customer.contractId }),
    real.sandbox.getBankAccount({ customerId: customer.id }),
  ]);
  expect({ payment: seen!.status!.payment, contract: contract!.status }).toEqual({
    payment: customer.active ? PaymentAuthorizationStatus.AUTHORIZED : PaymentAuthorizationStatus.NOT_AUTHORIZED,
    contract: customer.active ? ContractStatus.ACTIVATED : ContractStatus.CANCELLED,
  });
  // The account GetBankAccount names is the contract's; every other one is found by its masked number.
  expect(accounts.length).toBe(1 + (customer.otherAccounts?.length ?? 0));
  const pairs: Array<[BankAccount | undefined, ModelAccount]> = [
    [account, customer.account],
    ...(customer.otherAccounts ?? []).map(({ masked, account: expected }): [BankAccount | undefined, ModelAccount] => [
      accounts.find((seenAccount) => seenAccount.accountNumber === masked),
      expected,
    ]),
  ];
  let ledgerSum = 0;
  for (const [seenAccount, expected] of pairs) {
    const ledger = seenAccount!.ledger.map((row) => ({ reference: row.reference, amount: Number(row.amount) }));
    ledgerSum += ledger.reduce((sum, row) => sum + row.amount, 0);
    expect({
      balance: Number(seenAccount!.balance),
      quota: Number(seenAccount!.quota),
      reject: seenAccount!.reject,
      underMaintenance: seenAccount!.underMaintenance,
      ledger: ledger.sort(byReference),
    }).toEqual({
      balance: expected.balance,
      quota: expected.quota,
      reject: expected.reject,
      underMaintenance: expected.underMaintenance,
      ledger: [...expected.ledger].sort(byReference),
    });
  }
  expectMoneyBalance(model, customer, ledgerSum);
}

const byReference = (a: { reference: string }, b: { reference: string }) => a.reference.localeCompare(b.reference);

/**
 * Money balances: what the model says was charged minus refunded equals the bank's ledger. A
 * same-day cancellation reverses its debit, so it counts as money given back.
 */
function expectMoneyBalance(model: Model, customer: ModelCustomer, ledgerSum: number): void {
  const charges = model.charges.filter((c) => c.customerId === customer.id);
  const charged = charges.filter((c) => c.succeededAt !== undefined).reduce((sum, c) => sum + c.amount, 0);
  const transferredBack = model.refunds
    .filter((r) => r.status === RefundStatus.SUCCEEDED && charges.some((c) => c.id === r.chargeId))
    .reduce((sum, r) => sum + r.amount, 0);
  expect(ledgerSum).toBe(transferredBack - charged);
}

/** Everything the API reports, against the model. */
export async function expectEverything(real: RealSystem, model: Model): Promise<void> {
  await Promise.all([
    ...model.charges.map((charge) => expectCharge(real, model, charge.id)),
    ...model.customers.map((customer) => expectCustomer(real, model, customer)),
  ]);
}
