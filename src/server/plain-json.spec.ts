import { create, createFileRegistry, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { readsPlainly } from "./plain-json.js";

const T = { double: 1, int64: 3, uint64: 4, int32: 5, bool: 8, string: 9, message: 11, bytes: 12, uint32: 13 };
const registry = createFileRegistry(
  create(FileDescriptorSetSchema, {
    file: [
      {
        name: "plain.proto",
        package: "spec",
        syntax: "proto3",
        messageType: [
          {
            name: "Plain",
            field: [
              ...Object.entries(T).map(([type, number]) => ({
                name: `a_${type}`,
                jsonName: `a${type[0].toUpperCase()}${type.slice(1)}`,
                number,
                type: number,
                label: 1,
                typeName: type === "message" ? ".spec.Plain" : undefined,
              })),
              { name: "tags", jsonName: "tags", number: 20, type: 9, label: 3 },
              { name: "left", jsonName: "left", number: 21, type: 9, label: 1, oneofIndex: 0 },
              { name: "right", jsonName: "right", number: 22, type: 9, label: 1, oneofIndex: 0 },
            ],
            oneofDecl: [{ name: "side" }],
          },
        ],
      },
    ],
  }),
);
const plain = registry.getMessage("spec.Plain")!;

const decodes = (json: JsonValue) => {
  try {
    fromJson(plain, json);
    return true;
  } catch {
    return false;
  }
};

describe("readsPlainly", () => {
  it("takes plain strings, booleans and integers in range, by proto or JSON name", () => {
    for (const json of [
      {},
      { aString: "trx-1", aBool: true, aInt32: -2147483648, aUint32: 4294967295 },
      { a_string: "日本", a_int64: Number.MAX_SAFE_INTEGER, aUint64: 0, left: "x" },
      { aString: "😀" },
    ] as JsonValue[]) {
      expect([readsPlainly(plain, json), decodes(json)]).toEqual([true, true]);
    }
  });

  // Each of these, true or not to fromJson, is left to the full decode: never taken as plain.
  it("leaves everything else to the decoder, whether it decodes or not", () => {
    for (const json of [
      null,
      [],
      "x",
      { aString: "\uD800" },
      { aString: 1 },
      { aString: null },
      { aBool: "true" },
      { aInt32: 2147483648 },
      { aInt32: 1.5 },
      { aInt32: "7" },
      { aUint32: -1 },
      { aInt64: 2 ** 60 },
      { aUint64: -1 },
      { aDouble: 1 },
      { aBytes: "" },
      { aMessage: {} },
      { tags: [] },
      { left: "x", right: "y" },
      { aString: "a", a_string: "b" },
      { unknown: 1 },
      JSON.parse('{"__proto__": 1}'),
    ] as JsonValue[]) {
      expect(readsPlainly(plain, json), JSON.stringify(json)).toBe(false);
    }
  });

  it("never takes a body fromJson refuses", () => {
    const values: JsonValue[] = ["a", "\uDC00", "", 0, -1, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, true, null, [], {}];
    const keys = [...plain.fields.flatMap((f) => [f.name, f.jsonName]), "other"];
    for (const key of keys)
      for (const value of values) {
        const json = { [key]: value };
        if (readsPlainly(plain, json)) expect(decodes(json), JSON.stringify(json)).toBe(true);
      }
  });
});
