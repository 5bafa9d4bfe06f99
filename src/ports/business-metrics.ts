import type { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";

/**
 * What flows and workers report to the metrics (src/server/metrics.ts implements it), each after
 * the transaction that made it true committed.
 */
export interface BusinessMetrics {
  /** A charge reached SUCCESS or FAILURE (with its ErrorType; UNSPECIFIED on success). */
  chargeSettled(charge: { readonly status: ChargeStatus; readonly errorType: ErrorType }): void;
  /** A background job ran: done, asked to run again later (retry), or threw (error, retried with backoff). */
  jobRan(kind: string, outcome: "done" | "retry" | "error"): void;
}
