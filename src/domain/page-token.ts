import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure } from "./payment-failure.js";
import { limits } from "./limits.js";

/** An opaque cursor: the sort key of the last item of the previous page. */
export interface Cursor {
  createdAt: string;
  id: string;
}

export function encodePageToken(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString("base64url");
}

export function decodePageToken(token: string): Cursor | undefined {
  if (!token) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // fall through to the refusal below
  }
  throw new PaymentFailure(PaymentErrorCode.BAD_REQUEST, "page_token: not a token this API returned");
}

/** 0 means the default page size. */
export function pageSize(requested: number, fallback = limits.pageSizeDefault): number {
  return requested > 0 ? requested : fallback;
}
