import {
  create,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type MessageShape,
} from "@bufbuild/protobuf";

/**
 * Valid-shaped messages of any request type, built from its descriptor (gen/): every field of
 * the right type, with values drawn from pools that hit validation edges and real ids.
 */
export type Random = () => number;

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** Strings worth trying in any string field; `ids` adds the run's real ids. */
function stringPool(ids: readonly string[]): string[] {
  return [
    "",
    " ",
    "a",
    "cus-",
    "cus-doesnotexist",
    "trx-doesnotexist",
    "rfd-doesnotexist",
    "pwf-doesnotexist",
    "con-doesnotexist",
    "mwh-doesnotexist",
    "taro@example.jp",
    "TARO@Example.JP ",
    "not-an-email",
    "https://shop.example.jp/thanks?order=1",
    "javascript:alert(1)",
    "http://127.0.0.1:1/",
    "ヤマダ",
    "山田 太郎",
    "1990-04-01",
    "1990-13-45",
    "male",
    "0001",
    "1234567",
    "ERROR_TYPE_PAYMENT_CHARGE_FAILED",
    "x".repeat(256),
    "x".repeat(3000),
    "' OR 1=1 --",
    "%00%ff",
    "../../etc/passwd",
    "\u0000\u0001",
    "\ud83d\ude00",
    "\ud800",
    ...ids,
  ];
}

const int32Pool = [0, 1, -1, 2, 100, 1200, 10_000_000, 10_000_001, 86_400, 2_147_483_647, -2_147_483_648];
const int64Pool = [
  0n,
  1n,
  -1n,
  1_000n,
  1_000_000n,
  31_536_000n,
  31_536_001n,
  9_223_372_036_854_775_807n,
  -9_223_372_036_854_775_808n,
];

function scalarValue(random: Random, scalar: ScalarType, ids: readonly string[]): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return pick(random, stringPool(ids));
    case ScalarType.BOOL:
      return random() < 0.5;
    case ScalarType.BYTES:
      return Uint8Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 256));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return pick(random, int64Pool);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return pick(
        random,
        int64Pool.filter((v) => v >= 0n),
      );
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return pick(
        random,
        int32Pool.filter((v) => v >= 0),
      );
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return pick(random, [0, 1.5, -1, 1e10]);
    default:
      return pick(random, int32Pool);
  }
}

function enumValue(random: Random, desc: DescEnum): number {
  // Mostly defined values; sometimes one no one defined.
  return random() < 0.85 ? pick(random, desc.values).number : 999;
}

function fieldValue(random: Random, field: DescField, ids: readonly string[], depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalarValue(random, field.scalar, ids);
    case "enum":
      return enumValue(random, field.enum);
    case "message":
      return messageInit(random, field.message, ids, depth + 1);
    case "list": {
      const items = Array.from({ length: Math.floor(random() * 3) }, () =>
        field.listKind === "scalar"
          ? scalarValue(random, field.scalar, ids)
          : field.listKind === "enum"
            ? enumValue(random, field.enum)
            : messageInit(random, field.message, ids, depth + 1),
      );
      return items;
    }
    case "map": {
      const entries: Record<string, unknown> = {};
      const count = pick(random, [0, 1, 2, 51]);
      for (let i = 0; i < count; i++) {
        const key =
          i === 0 ? pick(random, ["triggerError", "sandboxRefundOutcome", "order", "", "k".repeat(41)]) : `k${i}`;
        entries[key] =
          field.mapKind === "scalar"
            ? scalarValue(random, field.scalar, ids)
            : field.mapKind === "enum"
              ? enumValue(random, field.enum)
              : messageInit(random, field.message, ids, depth + 1);
      }
      return entries;
    }
  }
}

/** A Timestamp that encodes (seconds in range, nanos 0–999,999,999). */
function timestampInit(random: Random) {
  return {
    seconds: BigInt(pick(random, [0, 1_700_000_000, 1_900_000_000, 253_402_300_799])),
    nanos: pick(random, [0, 500_000_000]),
  };
}

function messageInit(
  random: Random,
  desc: DescMessage,
  ids: readonly string[],
  depth: number,
): Record<string, unknown> {
  if (desc.typeName === "google.protobuf.Timestamp") return timestampInit(random);
  const init: Record<string, unknown> = {};
  if (depth > 3) return init;
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      if (random() < 0.3) continue;
      const field = pick(random, member.fields);
      init[member.localName] = { case: field.localName, value: fieldValue(random, field, ids, depth) };
      continue;
    }
    // Leave some fields unset: zero values hit "required" and defaults.
    if (random() < 0.3) continue;
    init[member.localName] = fieldValue(random, member, ids, depth);
  }
  return init;
}

/** A random valid-shaped message of `desc`. */
export function randomMessage<Desc extends DescMessage>(
  random: Random,
  desc: Desc,
  ids: readonly string[],
): MessageShape<Desc> {
  return create(desc, messageInit(random, desc, ids, 0) as never);
}
