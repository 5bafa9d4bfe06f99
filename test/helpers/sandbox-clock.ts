import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { jstInstant } from "../../src/domain/jst.js";
import type { TestServer } from "./test-server.js";

/**
 * Moves a SANDBOX_CLOCK=manual server's clock to 01:00 JST of `date` (SandboxService.AdvanceClock, as
 * a merchant's test would; never backwards) and lets the workers run: the jobs, the webhooks, then
 * the jobs those queued (a failure's e-mail, a re-debit).
 */
export async function advanceTo(server: TestServer, date: string): Promise<void> {
  const seconds = Math.round((jstInstant(date, "01:00").getTime() - server.clock.now().getTime()) / 1000);
  if (seconds > 0) await server.client(SandboxService).advanceClock({ seconds: BigInt(seconds) });
  await server.jobs.drain();
  await server.webhooks.drain();
  await server.jobs.drain();
}
