import { pick, type Random } from "./message-generator.js";

/**
 * Malformed bodies: broken JSON, wrong types, unknown fields, hostile nesting; and for the binary
 * protocols broken protobuf (random bytes, truncation, impossible lengths).
 */
export function malformedJson(random: Random, valid: Record<string, unknown>): string {
  const keys = Object.keys(valid);
  const key = keys.length > 0 ? pick(random, keys) : "field";
  const variants: Array<() => string> = [
    () => "",
    () => "{",
    () => "null",
    () => "[]",
    () => "42",
    () => '"text"',
    () => '{"a":}',
    () => JSON.stringify({ ...valid, unknownField: 1 }),
    () =>
      JSON.stringify({
        ...valid,
        // biome-ignore lint/correctness/noPrecisionLoss: 1e309 is Infinity on purpose, a number JSON cannot carry.
        [key]: pick(random, [123, "123", true, null, [], {}, [1, 2], 1e309, -0.5, "9".repeat(40)]),
      }),
    () => JSON.stringify({ ...valid, [key]: { nested: { deeper: [1, { x: "y" }] } } }),
    () => "[".repeat(5_000) + "]".repeat(5_000),
    () => '{"a":'.repeat(3_000) + "1" + "}".repeat(3_000),
    () => JSON.stringify(valid).slice(0, Math.floor(random() * JSON.stringify(valid).length)),
    () => JSON.stringify(valid).replace(/"/, "'"),
    () => `{"${key}": "\\ud800"}`,
    () => `{"${key}": "\\u0000"}`,
    () => JSON.stringify({ [key]: "x".repeat(200_000) }),
  ];
  return pick(random, variants)();
}

export function malformedBinary(random: Random, valid: Uint8Array): Uint8Array {
  const variants: Array<() => Uint8Array> = [
    () => Uint8Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)),
    () => valid.slice(0, Math.max(0, valid.length - 1 - Math.floor(random() * 4))),
    // Field 1, length-delimited, claiming far more bytes than follow.
    () => Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    // A varint that never ends.
    () => Uint8Array.from([0x08, ...Array.from({ length: 12 }, () => 0xff)]),
    // Wire type 7 does not exist; group start/end out of place.
    () => Uint8Array.from([0x0f, 0x01]),
    () => Uint8Array.from([0x0b, 0x0c]),
    () => {
      const copy = valid.slice();
      if (copy.length > 0) copy[Math.floor(random() * copy.length)] ^= 1 << Math.floor(random() * 8);
      return copy;
    },
  ];
  return pick(random, variants)();
}

/** A gRPC length-prefixed frame; `lie` states a length other than the payload's. */
export function grpcFrame(payload: Uint8Array, options: { compressed?: boolean; lie?: number } = {}): Uint8Array {
  const frame = new Uint8Array(5 + payload.length);
  frame[0] = options.compressed ? 1 : 0;
  new DataView(frame.buffer).setUint32(1, options.lie ?? payload.length);
  frame.set(payload, 5);
  return frame;
}
