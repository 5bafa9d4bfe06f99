import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";

/** A JSON Schema (OpenAPI 3.1 dialect) object. */
export type JsonSchema = { [key: string]: unknown };

/** Where a named schema lives in the document. */
export const schemaRef = (typeName: string): JsonSchema => ({ $ref: `#/components/schemas/${typeName}` });

/**
 * The protobuf JSON mapping of the well-known types the contract uses, written inline (they
 * are not objects on the wire).
 */
const wellKnown: Readonly<Record<string, JsonSchema>> = Object.freeze({
  "google.protobuf.Timestamp": { type: "string", format: "date-time", examples: ["2025-04-01T09:00:00Z"] },
  "google.protobuf.Duration": { type: "string", pattern: "^-?[0-9]+(\\.[0-9]+)?s$" },
  "google.protobuf.Struct": { type: "object", additionalProperties: true },
  "google.protobuf.Value": {},
  "google.protobuf.ListValue": { type: "array", items: {} },
  "google.protobuf.Empty": { type: "object" },
  "google.protobuf.FieldMask": { type: "string" },
  "google.protobuf.Any": {
    type: "object",
    properties: { "@type": { type: "string" } },
    required: ["@type"],
    additionalProperties: true,
  },
  "google.protobuf.StringValue": { type: ["string", "null"] },
  "google.protobuf.BoolValue": { type: ["boolean", "null"] },
  "google.protobuf.Int32Value": { type: ["integer", "null"], format: "int32" },
  "google.protobuf.Int64Value": { type: ["string", "null"], format: "int64" },
});

/** Scalars as protobuf JSON writes them: 64-bit integers are strings, bytes base64. */
function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", format: "int64", pattern: "^-?[0-9]+$" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int32", minimum: 0 };
    default:
      return { type: "integer", format: "int32" };
  }
}

/** The schema of one field's value; `use` is told about every message or enum it refers to. */
export function fieldSchema(field: DescField, use: (type: DescMessage | DescEnum) => void): JsonSchema {
  const described = (schema: JsonSchema): JsonSchema => {
    const description = getComments(field).leading?.trim();
    return description ? { ...schema, description } : schema;
  };
  switch (field.fieldKind) {
    case "scalar":
      return described(scalarSchema(field.scalar));
    case "enum":
      return described(typeSchema(field.enum, use));
    case "message":
      return described(typeSchema(field.message, use));
    case "list":
      return described({ type: "array", items: listItemSchema(field, use) });
    case "map":
      return described({ type: "object", additionalProperties: mapValueSchema(field, use) });
  }
}

function listItemSchema(
  field: DescField & { fieldKind: "list" },
  use: (type: DescMessage | DescEnum) => void,
): JsonSchema {
  if (field.listKind === "scalar") return scalarSchema(field.scalar);
  return typeSchema(field.listKind === "enum" ? field.enum : field.message, use);
}

function mapValueSchema(
  field: DescField & { fieldKind: "map" },
  use: (type: DescMessage | DescEnum) => void,
): JsonSchema {
  if (field.mapKind === "scalar") return scalarSchema(field.scalar);
  return typeSchema(field.mapKind === "enum" ? field.enum : field.message, use);
}

function typeSchema(type: DescMessage | DescEnum, use: (type: DescMessage | DescEnum) => void): JsonSchema {
  const known = wellKnown[type.typeName];
  if (known) return known;
  use(type);
  return schemaRef(type.typeName);
}

/** A message as a JSON object: properties by their JSON (lowerCamelCase) names, oneof members optional. */
export function messageSchema(
  message: DescMessage,
  use: (type: DescMessage | DescEnum) => void,
  omit: ReadonlySet<string> = new Set(),
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of message.fields) {
    if (!omit.has(field.name)) properties[field.jsonName] = fieldSchema(field, use);
  }
  const description = getComments(message).leading?.trim();
  return { type: "object", ...(description ? { description } : {}), properties };
}

/** An enum as protobuf JSON writes it: the value's name (requests may send the number too). */
export function enumSchema(enumDesc: DescEnum): JsonSchema {
  const description = getComments(enumDesc).leading?.trim();
  return { type: "string", ...(description ? { description } : {}), enum: enumDesc.values.map((v) => v.name) };
}
