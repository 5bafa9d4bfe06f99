/** docs/reference/contract.md#limits — the columns of a CSV batch, in this order; idempotency_key may be left out. */
export const csvColumns = Object.freeze([
  "customer_email",
  "customer_id",
  "price",
  "description",
  "metadata",
  "idempotency_key",
] as const);
