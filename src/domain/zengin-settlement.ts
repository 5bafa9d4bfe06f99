import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeSettlement } from "./charge-settlement.js";
import { zenginFailureMessage, zenginResultOfCode } from "./zengin-result.js";

// Apart from zengin-result.ts, which the bank profile reads: the settlement decision imports the
// webhook content, which reaches the bank profile again (an import cycle; docs/architecture.md#layers).

/** A debit's result code as the settlement of its charge: 0 debited, else failed (3 and 4 also end the contract). */
export function zenginSettlementOf(code: number): ChargeSettlement {
  const result = zenginResultOfCode(code);
  if (!result) return { status: ChargeStatus.SUCCESS };
  return {
    status: ChargeStatus.FAILURE,
    errorType: result.errorType,
    message: zenginFailureMessage(result),
    deactivatesContract: result.deactivates,
  };
}
