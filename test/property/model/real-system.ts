import type { Client } from "@connectrpc/connect";
import { PaymentService } from "../../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../../gen/payments/v1/sandbox_service_pb.js";
import type { TestServer } from "../../helpers/test-server.js";

/** The system under test for one sequence: the shared server and a fresh merchant's clients. */
export interface RealSystem {
  server: TestServer;
  merchantId: string;
  pay: Client<typeof PaymentService>;
  sandbox: Client<typeof SandboxService>;
}

export async function realSystemFor(server: TestServer): Promise<RealSystem> {
  const merchant = await server.newMerchant("Model Shop");
  return {
    server,
    merchantId: merchant.merchant_id,
    pay: server.client(PaymentService, merchant.api_key),
    sandbox: server.client(SandboxService, merchant.api_key),
  };
}

/** Counts of what the runs did, printed at the end. */
export const tally = new Map<string, number>();

export function count(what: string): void {
  tally.set(what, (tally.get(what) ?? 0) + 1);
}
