import { ScalarType, type DescField, type DescMessage, type DescOneof, type JsonValue } from "@bufbuild/protobuf";
import { getTextEncoding } from "@bufbuild/protobuf/wire";

/**
 * Whether protobuf-es's `fromJson` reads `json` into `desc` without an error, told without
 * decoding it: a JSON object whose every key names a different field of the message (by its proto
 * or its JSON name, as protobuf-es looks them up), at most one member of each oneof, and each value
 * one that protobuf-es's own checks take as it is —
 * - a string field: a string that is well-formed UTF-16 (protobuf-es's own `checkUtf8`);
 * - a bool field: true or false;
 * - an integer field: a JSON number that is an integer within the field's range (a safe integer
 *   for 64 bits).
 * Anything else (null, enums, messages, lists, maps, floats, bytes, numbers as strings, an unknown
 * or repeated key, a well-known type) answers false, and the caller decodes to find out: false
 * never means the body is wrong, true always means `fromJson` succeeds.
 */
export function readsPlainly(desc: DescMessage, json: JsonValue): boolean {
  if (desc.typeName.startsWith("google.protobuf.")) return false;
  if (json === null || typeof json !== "object" || Array.isArray(json)) return false;
  const names = jsonNamesOf(desc);
  const seen = new Set<DescField | DescOneof>();
  for (const key in json) {
    const field = Object.hasOwn(json, key) ? names.get(key) : undefined;
    if (!field || seen.has(field) || (field.oneof && seen.has(field.oneof))) return false;
    seen.add(field);
    if (field.oneof) seen.add(field.oneof);
    if (!isPlainScalar(field, json[key])) return false;
  }
  return true;
}

function isPlainScalar(field: DescField, value: JsonValue): boolean {
  if (field.fieldKind !== "scalar") return false;
  switch (field.scalar) {
    case ScalarType.STRING:
      return typeof value === "string" && getTextEncoding().checkUtf8(value);
    case ScalarType.BOOL:
      return typeof value === "boolean";
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return Number.isInteger(value) && (value as number) >= -0x80000000 && (value as number) <= 0x7fffffff;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return Number.isSafeInteger(value);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return Number.isSafeInteger(value) && (value as number) >= 0;
    default:
      return false;
  }
}

/** Each field by its proto name and its JSON name, built in the order protobuf-es builds its own. */
const jsonNames = new WeakMap<DescMessage, Map<string, DescField>>();

function jsonNamesOf(desc: DescMessage): Map<string, DescField> {
  let names = jsonNames.get(desc);
  if (!names) {
    names = new Map();
    for (const field of desc.fields) names.set(field.name, field).set(field.jsonName, field);
    jsonNames.set(desc, names);
  }
  return names;
}
