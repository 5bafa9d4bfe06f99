import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { csvReason, type CsvReason } from "../domain/csv-row.js";
import { normalizeEmail } from "../domain/customer.js";
import { offSessionRefusal } from "../domain/off-session-eligibility.js";
import type { ContractRecord, CustomerRecord } from "../domain/records.js";
import { activatedContractsOf, customersForResolution } from "../storage/dashboard-queries.js";
import type { Tx } from "../storage/transactor.js";

/** A row's customer, or why it has none it may be charged (or subscribed) under. */
export type CsvCustomer = { customer: CustomerRecord; contractId: string } | { failure: CsvReason };

/**
 * docs/reference/contract.md#csv-batch-reasons, group 2 (customer resolution), shared by the charge
 * batches and the subscription import: a row names its customer by customer_id, or else by the
 * e-mail the customer was created with. Not found, or with no activated contract (payment not
 * authorized), fails the row. Without writing: the preview and the confirmation resolve alike.
 */
export async function resolveCsvCustomers(
  db: Tx,
  merchantId: string,
  rows: ReadonlyArray<{ email: string; customerId: string }>,
): Promise<CsvCustomer[]> {
  const wanted = rows.map((row) => ({ customerId: row.customerId.trim(), email: normalizeEmail(row.email) }));
  const customers = await customersForResolution(
    db,
    merchantId,
    wanted.filter((w) => w.customerId).map((w) => w.customerId),
    wanted.filter((w) => !w.customerId).map((w) => w.email),
  );
  const byId = new Map(customers.map((c) => [c.id, c]));
  const byEmail = new Map(customers.map((c) => [normalizeEmail(c.email), c]));
  // Newest first: a customer's newest activated contract, as CreateSubscription takes it.
  const activatedContract = new Map<string, ContractRecord>();
  for (const contract of await activatedContractsOf(db, [...byId.keys()]))
    if (!activatedContract.has(contract.customerId)) activatedContract.set(contract.customerId, contract);
  return wanted.map((w): CsvCustomer => {
    const customer = w.customerId ? byId.get(w.customerId) : byEmail.get(w.email);
    const contract = customer && activatedContract.get(customer.id);
    const refusal = offSessionRefusal({ customer, activatedContract: contract, forceKyc: false });
    if (refusal === ErrorType.PAYMENT_CUSTOMER_NOT_FOUND)
      return { failure: csvReason(w.customerId ? "customerIdNotFound" : "emailNotLinked") };
    if (refusal !== undefined || !customer || !contract) return { failure: csvReason("customerInactive") };
    return { customer, contractId: contract.id };
  });
}
