import { create, toJson } from "@bufbuild/protobuf";
import { ConnectError, Code } from "@connectrpc/connect";
import { errorFromJson } from "@connectrpc/connect/protocol-connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import {
  CreateOffSessionPaymentAsyncRequestSchema,
  CreateOffSessionPaymentAsyncResponseSchema,
  PaymentService,
} from "../../gen/payments/v1/payment_service_pb.js";
import { chargeFailureReason, csvChargeReasons } from "../domain/csv-batch.js";
import { checkCsvRow, type CsvReason } from "../domain/csv-row.js";
import { requestFingerprint, type IdempotencyRecord } from "../domain/idempotency.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { storedErrorAnswer, toConnectError } from "../errors.js";
import type { JobOutcome } from "../storage/jobs.js";
import { findCsvBatchById, findCsvRow, updateCsvRow } from "../storage/csv-batches.js";
import { findMerchant } from "../storage/merchants.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { finishIdempotentRequest, runIdempotent, settleFailedRequest, type IdempotencyScope } from "./idempotency.js";
import { createOffSessionPaymentAsync, type OffSessionInput } from "./off-session.js";
import { limits } from "../domain/limits.js";

/** A row whose charge could not be started for an unexpected reason is tried this many times. */
/** A row waiting for another request under its key (a re-uploaded file running at once) waits this long per try. */

/**
 * The csv-row job (kind "csv-row", ref `bat-…:<row>`): charges one queued row through the
 * off-session engine — a CreateOffSessionPaymentAsync made by the dashboard under the row's
 * idempotency key, with the same idempotency record an API call would have — and records the
 * charge it started (its outcome is read from the charge) or why it could not start.
 */
export async function runCsvRowJob(ctx: FlowContext, ref: string, attempt: number): Promise<JobOutcome> {
  const [batchId, rowText] = ref.split(":");
  const row = await findCsvRow(ctx.tx.db, batchId, Number(rowText));
  if (!row || row.state !== "queued" || !row.customerId) return { done: true };
  const batch = await findCsvBatchById(ctx.tx.db, batchId);
  const merchant = batch && (await findMerchant(ctx.tx.db, batch.merchantId));
  const check = batch && checkCsvRow(row.cells, batch.header.length);
  if (!merchant || !check?.valid) return { done: true };

  const input: OffSessionInput = {
    customerId: row.customerId,
    price: check.row.price,
    description: check.row.description,
    metadata: check.row.metadata,
    forceKyc: false,
  };
  let started: StartedCharge;
  try {
    started = await startChargeOnce(ctx, { id: merchant.id, name: merchant.name }, row.idempotencyKey, input);
  } catch (error) {
    const inFlight = error instanceof RequestRefusal && error.kind === "in_flight";
    if (attempt < (inFlight ? limits.csvRowInFlightAttemptsMax : limits.csvRowStartAttemptsMax)) {
      return {
        retryAt: new Date(
          ctx.clock.now().getTime() +
            (inFlight ? limits.csvRowInFlightRetryMs : limits.csvRowStartRetryFirstDelayMs * 2 ** attempt),
        ),
      };
    }
    started = { reason: csvChargeReasons.initiateFailed };
  }
  const updatedAt = ctx.clock.now();
  await ctx.tx.write((trx) =>
    updateCsvRow(
      trx,
      batchId,
      row.rowNumber,
      "chargeId" in started
        ? { state: "submitted", chargeId: started.chargeId, updatedAt }
        : { state: "failed", reason: started.reason.en, reasonJa: started.reason.ja, updatedAt },
    ),
  );
  return { done: true };
}

type StartedCharge = { chargeId: string } | { reason: CsvReason };

const asyncMethod = `${PaymentService.typeName}/${PaymentService.method.createOffSessionPaymentAsync.name}`;
const jsonOptions = { alwaysEmitImplicit: true } as const;

/**
 * The row's charge, started at most once per key: the same key and request replay the first
 * answer (a re-uploaded file, a job run again); the same key with another request fails the row.
 * Unexpected errors free the key and are thrown, for the job to try again.
 */
async function startChargeOnce(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  key: string,
  input: OffSessionInput,
): Promise<StartedCharge> {
  const message = create(CreateOffSessionPaymentAsyncRequestSchema, {
    customerId: input.customerId,
    charge: { price: input.price, description: input.description, metadata: input.metadata },
  });
  const request = {
    merchantId: merchant.id,
    key,
    method: asyncMethod,
    requestHash: requestFingerprint(asyncMethod, toJson(CreateOffSessionPaymentAsyncRequestSchema, message)),
  };
  try {
    // The async create binds the key in the transaction that writes the charge: a first use claims it there.
    return await runIdempotent(ctx, request, true, (start) =>
      "replay" in start ? Promise.resolve(storedAnswer(start.replay)) : startUnder(ctx, merchant, input, start.run),
    );
  } catch (error) {
    if (error instanceof RequestRefusal && error.kind === "conflict") return { reason: csvChargeReasons.keyReused };
    throw error;
  }
}

async function startUnder(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: OffSessionInput,
  scope: IdempotencyScope,
): Promise<StartedCharge> {
  try {
    const request = await createOffSessionPaymentAsync(ctx, merchant, input, scope);
    const response = create(CreateOffSessionPaymentAsyncResponseSchema, {
      requestId: request.id,
      status: request.status,
      chargeId: request.chargeId,
    });
    await finishIdempotentRequest(ctx, scope, {
      json: JSON.stringify(toJson(CreateOffSessionPaymentAsyncResponseSchema, response, jsonOptions)),
      httpStatus: 200,
    });
    return { chargeId: request.chargeId };
  } catch (error) {
    const connectError = toConnectError(error);
    await settleFailedRequest(ctx, scope, storedErrorAnswer(error));
    if (!connectError) throw error;
    return { reason: reasonOfError(connectError) };
  }
}

function storedAnswer(record: IdempotencyRecord): StartedCharge {
  const stored = JSON.parse(record.responseJson);
  if (record.httpStatus === 200) return { chargeId: String(stored.chargeId ?? "") };
  return {
    reason: reasonOfError(errorFromJson(stored, undefined, new ConnectError("unreadable stored error", Code.Internal))),
  };
}

/**
 * A charge that failed as a request (a sandbox triggerError answers so): the default message of
 * its ErrorType; a validation refusal reads as an invalid payment request.
 */
function reasonOfError(error: ConnectError): CsvReason {
  const code = error.findDetails(ErrorInfoSchema).find((info) => info.reason.startsWith("ERROR_TYPE_"))?.reason;
  const errorType = code ? ErrorType[code.slice("ERROR_TYPE_".length) as keyof typeof ErrorType] : undefined;
  if (errorType !== undefined) return chargeFailureReason(errorType);
  return error.code === Code.InvalidArgument
    ? chargeFailureReason(ErrorType.PAYMENT_VALIDATION_FAILED)
    : csvChargeReasons.initiateFailed;
}
