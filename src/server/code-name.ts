import { Code } from "@connectrpc/connect";

/** invalid_argument, resource_exhausted, … as on the wire. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}
