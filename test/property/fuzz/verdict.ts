import { refundRefusalMessages } from "../../../src/domain/refund.js";
import type { Answer } from "./protocols.js";

/**
 * The documented answers (docs/reference/errors.md, src/errors.ts): the Connect codes the error table and
 * the refusals map to, the HTTP statuses of the plain paths (404 unknown path, 405 wrong verb,
 * 415 unknown content type on RPC paths), and `internal` only when it is explained — a catalogued
 * code in an ErrorInfo detail, or one of the refund endpoint's documented messages.
 */
const documentedCodes = new Set([
  "",
  "invalid_argument",
  "not_found",
  "unauthenticated",
  "unavailable",
  "failed_precondition",
  "aborted",
  "resource_exhausted",
  "unimplemented",
  "http_404",
  "http_405",
  "http_415",
]);

const documentedInternalMessages = new Set<string>(Object.values(refundRefusalMessages));

/** Why an answer is not a documented one, or undefined when it is. */
export function unexplained(answer: Answer): string | undefined {
  if (answer.code === "internal") {
    if (answer.catalogued || documentedInternalMessages.has(answer.message)) return undefined;
    return `unexplained internal: ${answer.message}`;
  }
  if (!documentedCodes.has(answer.code))
    return `undocumented ${answer.code} (HTTP ${answer.httpStatus}): ${answer.message}`;
  return undefined;
}
