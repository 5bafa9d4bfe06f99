import { getOption, hasOption, type DescField, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import { idempotency_key } from "../../gen/payments/v1/errors_pb.js";

/** A method declared as an HTTP GET: a read, safe to send again. */
export function isHttpGet(method: DescMethod): boolean {
  return hasOption(method, http) && getOption(method, http).pattern.case === "get";
}

/**
 * Where a call's idempotency key sits (docs/reference/contract.md#idempotency): the path of fields
 * from the request down to the string field marked `(payments.v1.idempotency_key)` in the .proto,
 * at the top or inside singular message fields (DashboardService.RefundCharge holds a RefundRequest).
 * Undefined when the method takes no key.
 */
export function idempotencyKeyPath(method: DescMethod): readonly DescField[] | undefined {
  return keyPathIn(method.input, new Set());
}

function keyPathIn(message: DescMessage, seen: Set<DescMessage>): DescField[] | undefined {
  if (seen.has(message)) return undefined;
  seen.add(message);
  for (const field of message.fields) {
    if (field.fieldKind === "scalar" && getOption(field, idempotency_key)) return [field];
  }
  for (const field of message.fields) {
    if (field.fieldKind !== "message") continue;
    const inner = keyPathIn(field.message, seen);
    if (inner) return [field, ...inner];
  }
  return undefined;
}

/** The key a request carries at `path` ("" when absent). */
export function keyAt(message: unknown, path: readonly DescField[]): string {
  let at: unknown = message;
  for (const field of path) at = (at as Record<string, unknown> | undefined)?.[field.localName];
  return typeof at === "string" ? at : "";
}

/** The request as JSON without its key (the key names the request, it is not part of it). */
export function withoutKey(json: Record<string, unknown>, path: readonly DescField[]): Record<string, unknown> {
  const [field, ...rest] = path;
  if (!(field.jsonName in json)) return json;
  const copy = { ...json };
  if (rest.length === 0) delete copy[field.jsonName];
  else copy[field.jsonName] = withoutKey(copy[field.jsonName] as Record<string, unknown>, rest);
  return copy;
}

/** Puts `key` at `path` in a (cloned, mutable) request; a missing enclosing message is left missing. */
export function setKeyAt(message: unknown, path: readonly DescField[], key: string): void {
  let at = message as Record<string, unknown> | undefined;
  for (const field of path.slice(0, -1)) at = at?.[field.localName] as Record<string, unknown> | undefined;
  if (at) at[path[path.length - 1].localName] = key;
}
