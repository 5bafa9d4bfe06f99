import { SqliteDatabase as Database } from "../../src/storage/sqlite-driver.js";
import { AsyncStatus, ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";

/** What a writer sent and, if the server answered 200 before it died, what it acknowledged. */
export interface SentWrite {
  kind: "async" | "on-session" | "refund";
  /** Idempotency key; also the charge description or refund reason, to find its rows. */
  key: string;
  acked?: { chargeId?: string; requestId?: string; refundId?: string };
}

/**
 * A steady mix of writes against one server process until `stop` resolves: off-session async
 * charges and on-session links (new customers), refunds of charges known to have succeeded, each
 * with an idempotency key.
 */
export async function writeUntil(
  url: string,
  apiKey: string,
  options: {
    customerIds: string[];
    refundable: string[];
    round: number;
    writers: number;
    stop: Promise<unknown>;
    onAck: () => void;
  },
): Promise<SentWrite[]> {
  const sent: SentWrite[] = [];
  let stopped = false;
  void options.stop.then(() => (stopped = true));
  let n = 0;
  const post = async (path: string, key: string, request: object) => {
    const res = await fetch(url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(request),
    });
    if (res.status !== 200) return undefined;
    const answer = await res.json();
    options.onAck();
    return answer;
  };
  const writer = async (w: number) => {
    while (!stopped) {
      const key = `r${options.round}-w${w}-${n++}`;
      const dice = Math.random();
      const write: SentWrite = {
        kind: dice < 0.5 ? "async" : dice < 0.75 || options.refundable.length === 0 ? "on-session" : "refund",
        key,
      };
      sent.push(write);
      try {
        if (write.kind === "async") {
          const customerId = options.customerIds[n % options.customerIds.length];
          const body = await post("/v1/payments/off-session/async", key, {
            customer_id: customerId,
            charge: { price: 100, description: key },
          });
          if (body) write.acked = { chargeId: body.chargeId, requestId: body.requestId };
        } else if (write.kind === "on-session") {
          const body = await post("/v1/payments/on-session", key, {
            buyer: { email: `${key}@example.jp` },
            charge: { price: 500, description: key },
            redirect: { success_url: "https://shop.example.jp/ok", failure_url: "https://shop.example.jp/ng" },
          });
          if (body) write.acked = { chargeId: body.charge.chargeId };
        } else {
          const chargeId = options.refundable[Math.floor(Math.random() * options.refundable.length)];
          const body = await post("/v1/refund", key, { charge_id: chargeId, amount: 1, reason: key });
          if (body) write.acked = { refundId: body.refund.refundId, chargeId };
        }
      } catch {
        // The process died under the request: unacknowledged, so it may or may not have happened.
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  return sent;
}

const terminalAsync = [AsyncStatus.SUCCEEDED, AsyncStatus.FAILED, AsyncStatus.FAILED_TO_START];

/** The database file, read directly between processes. */
export class CrashLedger {
  readonly #db: Database;
  constructor(file: string) {
    this.#db = new Database(file, { readonly: true, fileMustExist: true });
  }

  close(): void {
    this.#db.close();
  }

  integrity(): string {
    return (this.#db.pragma("integrity_check") as Array<{ integrity_check: string }>)
      .map((r) => r.integrity_check)
      .join(",");
  }

  unfinishedRequests(): number {
    return (
      this.#db
        .prepare(`select count(*) as n from async_requests where status not in (${terminalAsync.join(",")})`)
        .get() as { n: number }
    ).n;
  }

  chargesDescribed(key: string): Array<{ id: string; status: number; request_id: string | null }> {
    return this.#db.prepare("select id, status, request_id from charges where description = ?").all(key) as never;
  }

  refundsWithReason(key: string): Array<{ id: string; status: number; cancellation: number }> {
    return this.#db.prepare("select id, status, cancellation from refunds where reason = ?").all(key) as never;
  }

  requestOf(id: string): { charge_id: string; status: number } | undefined {
    return this.#db.prepare("select charge_id, status from async_requests where id = ?").get(id) as never;
  }

  /** Outcome events (CHARGE_SUCCESS / CHARGE_FAIL) of a charge. */
  chargeOutcomeEvents(chargeId: string): number {
    return (
      this.#db
        .prepare(
          "select count(*) as n from events where charge_id = ? and event_type_name in ('EVENT_TYPE_CHARGE_SUCCESS','EVENT_TYPE_CHARGE_FAIL')",
        )
        .get(chargeId) as { n: number }
    ).n;
  }

  /** Refund outcome events naming a refund. */
  refundEvents(refundId: string): number {
    return (
      this.#db
        .prepare(
          "select count(*) as n from events where event_type_name in ('EVENT_TYPE_REFUND_SUCCEEDED','EVENT_TYPE_REFUND_FAILED') and content_json like ?",
        )
        .get(`%"${refundId}"%`) as { n: number }
    ).n;
  }

  succeededChargeIds(): string[] {
    return (
      this.#db
        .prepare("select id from charges where status = ? and request_id is not null")
        .all(ChargeStatus.SUCCESS) as Array<{ id: string }>
    ).map((r) => r.id);
  }

  /** Every booking's reference is a charge that was debited or a refund that was transferred, once. */
  ledgerMismatches(): string[] {
    const rows = this.#db.prepare("select reference, amount from bank_ledger").all() as Array<{
      reference: string;
      amount: number;
    }>;
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.reference)) problems.push(`booked twice: ${row.reference}`);
      seen.add(row.reference);
      const charge = this.#db.prepare("select amount, status from charges where id = ?").get(row.reference) as
        | { amount: number; status: number }
        | undefined;
      const refund = this.#db
        .prepare("select amount, status, cancellation from refunds where id = ?")
        .get(row.reference) as { amount: number; status: number; cancellation: number } | undefined;
      const debited =
        charge &&
        [ChargeStatus.SUCCESS, ChargeStatus.REFUNDED, ChargeStatus.CANCELLED].includes(charge.status) &&
        row.amount === -charge.amount;
      // A refund is booked before its outcome is written: a kill in between leaves it pending, to be settled again (booked once).
      const credited =
        refund && !refund.cancellation && refund.status !== RefundStatus.FAILED && row.amount === refund.amount;
      if (!debited && !credited) problems.push(`unexplained booking ${row.reference} ${row.amount}`);
    }
    return problems;
  }
}
