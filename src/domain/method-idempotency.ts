import { getOption, hasOption, type DescField, type DescMethod } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";

/** A method declared as an HTTP GET: a read, safe to send again. */
export function isHttpGet(method: DescMethod): boolean {
  return hasOption(method, http) && getOption(method, http).pattern.case === "get";
}

/**
 * The key field of a create call (docs/reference/contract.md#idempotency): `idempotency_key`, on a method
 * that is not a GET (GetIdempotencyRecord has one too, as the key it looks up).
 */
export function idempotencyKeyField(method: DescMethod): DescField | undefined {
  if (isHttpGet(method)) return undefined;
  return method.input.fields.find((f) => f.name === "idempotency_key" && f.fieldKind === "scalar");
}
