import {
  fromBinary,
  fromJson,
  getOption,
  hasOption,
  ScalarType,
  type DescField,
  type DescMessage,
  type DescMethod,
  type JsonValue,
} from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { createContextKey, createContextValues } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import { limits } from "../domain/limits.js";
import { readsPlainly } from "./plain-json.js";

/**
 * A request the wire checks refuse, before any rule of the .proto runs: the field (proto path,
 * e.g. `charge.price`) when one is to blame, and the rule that refused it (`whole_number`,
 * `decode`, `text`, or a rule id declared on the field such as `INVALID_AMOUNT`).
 */
export interface WireProblem {
  readonly field?: string;
  readonly message: string;
  readonly rule: string;
}

/** Set by {@link withWireChecks} when the body was refused; the validation interceptor reports it. */
export const wireProblemKey = createContextKey<WireProblem | undefined>(undefined, { description: "wire problem" });

/** The largest request body a Connect handler reads (the router's readMaxBytes). */
export const readMaxBytes = limits.rpcBodyBytesMax;

const compressions = new Map([
  ["gzip", compressionGzip],
  ["br", compressionBrotli],
]);

/**
 * Decodes the JSON (and Connect binary) request body of a unary call itself before connect-es
 * does, for every method and both the RPC and the plain HTTP paths:
 * - an integer field takes a JSON number or a plain decimal string only (protobuf-es also reads
 *   "0x10", "0b11", "0o17" and "1e3"), so "0x10" is never 16 yen;
 * - a body connect-es could not decode (`"price": 12.5`, an unknown key, broken JSON) is not
 *   answered by connect-es with a bare invalid_argument, but goes on as an empty message carrying
 *   the problem, so the validation interceptor answers it like any rule: the method's
 *   catalogued code in a google.rpc.ErrorInfo, naming the field.
 * A binary gRPC or gRPC-Web body of a unary call is only checked to decode (its numbers are
 * binary): one that does not goes on the same way, as one empty message frame. A JSON body of
 * plain values that decoding cannot refuse (`readsPlainly`) is only walked, not decoded here:
 * connect-es decodes it once.
 */
export function withWireChecks(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: UniversalServerRequest) => {
    const checked = await checkBody(handler.method, request);
    if (!checked) return handler(request);
    if (!checked.problem) return handler({ ...request, body: checked.body });
    const contextValues = request.contextValues ?? createContextValues();
    contextValues.set(wireProblemKey, checked.problem);
    // An empty message in the body's own format, so connect-es decodes it and the interceptors run.
    const header = new Headers(request.header);
    header.delete("content-encoding");
    header.delete("content-length");
    const body = checked.empty ? replayOf([checked.empty]) : {};
    return handler({ ...request, header, body, contextValues });
  };
  return Object.assign(wrapped, handler);
}

/** The body, or a refused body's problem and the bytes that decode as an empty message in its format. */
type Checked = { body: UniversalServerRequest["body"]; problem?: WireProblem; empty?: Uint8Array } | undefined;

async function checkBody(method: DescMethod, request: UniversalServerRequest): Promise<Checked> {
  if (request.method !== "POST") return undefined;
  const input = method.input;
  const body = request.body;
  // The plain HTTP paths hand over the JSON they decoded.
  if (!isAsyncIterable(body)) return { body, problem: jsonProblem(input, body as JsonValue) };
  const contentType = request.header.get("content-type") ?? "";
  if (grpcBinary.test(contentType)) return method.methodKind === "unary" ? checkFrame(input, request, body) : undefined;
  const binary = /^application\/proto\b/i.test(contentType);
  if (!binary && !/^application\/json\b/i.test(contentType)) return undefined;
  const encoding = request.header.get("content-encoding") ?? "identity";
  const compression = compressions.get(encoding);
  if (encoding !== "identity" && !compression) return undefined;
  if (Number(request.header.get("content-length") ?? 0) > readMaxBytes) return undefined;
  const { chunks, rest } = await readUpTo(body, readMaxBytes);
  const replay = replayOf(chunks, rest);
  if (rest) return { body: replay };
  let bytes: Uint8Array = Buffer.concat(chunks);
  try {
    if (compression) bytes = await compression.decompress(bytes, readMaxBytes);
  } catch {
    return { body: replay }; // connect-es answers its own decompression error
  }
  if (binary) {
    try {
      fromBinary(input, bytes);
      return { body: replay };
    } catch (error) {
      return { body: replay, empty: new Uint8Array(0), problem: decodeProblem(error) };
    }
  }
  let json: JsonValue;
  try {
    json = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    return {
      body: replay,
      problem: { message: `request body is not valid JSON: ${messageOf(error)}`, rule: "decode" },
    };
  }
  return { body: json, problem: jsonProblem(input, json) };
}

const grpcBinary = /^application\/grpc(-web)?(\+proto)?$/i;

/** One decoder for every body: it keeps no state between whole (non-streaming) decodes. */
const utf8 = new TextDecoder();

/** A unary gRPC or gRPC-Web request is one message frame: a flags byte, a 4-byte length, the message. */
async function checkFrame(
  input: DescMessage,
  request: UniversalServerRequest,
  body: AsyncIterable<Uint8Array>,
): Promise<Checked> {
  const encoding = request.header.get("grpc-encoding") ?? "identity";
  const compression = compressions.get(encoding);
  if (encoding !== "identity" && !compression) return undefined; // connect-es refuses the encoding itself
  const { chunks, rest } = await readUpTo(body, readMaxBytes);
  const replay = replayOf(chunks, rest);
  if (rest) return { body: replay };
  const refused = (problem: WireProblem) => ({ body: replay, empty: new Uint8Array(5), problem });
  const bytes = Buffer.concat(chunks);
  if (bytes.length < 5 || bytes.readUInt32BE(1) !== bytes.length - 5) {
    return refused({ message: "request body: not one gRPC message frame", rule: "decode" });
  }
  let message: Uint8Array = bytes.subarray(5);
  if (bytes[0] & 0x01) {
    if (!compression) return refused({ message: "request body: compressed, but no grpc-encoding", rule: "decode" });
    try {
      message = await compression.decompress(message, readMaxBytes);
    } catch {
      return { body: replay }; // connect-es answers its own decompression error
    }
  }
  try {
    fromBinary(input, message);
    return { body: replay };
  } catch (error) {
    return refused(decodeProblem(error));
  }
}

function decodeProblem(error: unknown): WireProblem {
  return { message: `request body: ${messageOf(error)}`, rule: "decode" };
}

/** The first problem of a JSON request, or undefined when connect-es will decode it as the client meant. */
export function jsonProblem(input: DescMessage, json: JsonValue): WireProblem | undefined {
  const paths = new Map<DescField, string>();
  const found = numberProblem(input, json, "", paths);
  if (found) return found;
  // Most bodies (GetCharge's `{"charge": "trx-…"}`) are a few plain strings and numbers that
  // fromJson cannot refuse: skip decoding those here, and connect-es decodes them once. Any other
  // body is decoded here as before, so every refused body is answered as it always was.
  if (readsPlainly(input, json)) return undefined;
  try {
    fromJson(input, json);
    return undefined;
  } catch (error) {
    const message = messageOf(error);
    const named = /^cannot decode field ([\w.]+) from JSON: (.*)$/s.exec(message);
    const met = named && [...paths].find(([f]) => `${f.parent.typeName}.${f.name}` === named[1]);
    if (!met) return { message: `request body: ${message}`, rule: "decode" };
    const [field, at] = met;
    return { field: at, message: `${at}: ${named[2]}`, rule: amountRule(field) ?? "decode" };
  }
}

const integerScalars = new Set([
  ScalarType.INT32,
  ScalarType.INT64,
  ScalarType.UINT32,
  ScalarType.UINT64,
  ScalarType.SINT32,
  ScalarType.SINT64,
  ScalarType.FIXED32,
  ScalarType.FIXED64,
  ScalarType.SFIXED32,
  ScalarType.SFIXED64,
]);

const plainInteger = /^-?[0-9]+$/;

/** Walks the JSON along the message's descriptor; records where each field was met. */
function numberProblem(
  desc: DescMessage,
  json: JsonValue,
  path: string,
  paths: Map<DescField, string>,
): WireProblem | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field || value === null) continue;
    const at = path ? `${path}.${field.name}` : field.name;
    if (!paths.has(field)) paths.set(field, at);
    const problem = fieldProblem(field, value, at, paths);
    if (problem) return problem;
  }
  return undefined;
}

function fieldProblem(
  field: DescField,
  value: JsonValue,
  at: string,
  paths: Map<DescField, string>,
): WireProblem | undefined {
  const scalar = (v: JsonValue, where: string) =>
    integerScalars.has(field.scalar!) && !isWholeNumber(v)
      ? {
          field: where,
          message: `${where}: must be a whole number, as a JSON number or a decimal string (got ${JSON.stringify(v)})`,
          rule: amountRule(field) ?? "whole_number",
        }
      : undefined;
  const message = (v: JsonValue, where: string) =>
    field.message!.typeName.startsWith("google.protobuf.") ? undefined : numberProblem(field.message!, v, where, paths);
  switch (field.fieldKind) {
    case "scalar":
      return scalar(value, at);
    case "message":
      return message(value, at);
    case "list":
      if (!Array.isArray(value)) return undefined;
      for (const [i, item] of value.entries()) {
        const problem =
          field.listKind === "scalar"
            ? scalar(item, `${at}[${i}]`)
            : field.listKind === "message"
              ? message(item, `${at}[${i}]`)
              : undefined;
        if (problem) return problem;
      }
      return undefined;
    case "map":
      if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
      for (const [k, item] of Object.entries(value)) {
        const where = `${at}[${JSON.stringify(k)}]`;
        const problem =
          field.mapKind === "scalar"
            ? scalar(item, where)
            : field.mapKind === "message"
              ? message(item, where)
              : undefined;
        if (problem) return problem;
      }
      return undefined;
    default:
      return undefined;
  }
}

function isWholeNumber(value: JsonValue): boolean {
  if (typeof value === "number") return Number.isInteger(value);
  return typeof value === "string" && plainInteger.test(value);
}

/** A field declared as an amount (a rule with id INVALID_AMOUNT in the .proto) reports that rule. */
function amountRule(field: DescField): string | undefined {
  if (!hasOption(field, fieldRules)) return undefined;
  return getOption(field, fieldRules).cel.some((rule) => rule.id === "INVALID_AMOUNT") ? "INVALID_AMOUNT" : undefined;
}

/**
 * NUL characters and text that was not valid UTF-8 (decoded as U+FFFD, or a lone surrogate from a
 * JSON escape) in any string of a decoded request, map keys included: the first such field's path.
 */
export function badTextField(message: ReflectMessage, path = ""): string | undefined {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const at = path ? `${path}.${field.name}` : field.name;
    const value = message.get(field) as unknown;
    const found = badTextValue(field, value, at);
    if (found) return found;
  }
  return undefined;
}

function badTextValue(field: DescField, value: unknown, at: string): string | undefined {
  const check = (v: unknown, where: string): string | undefined => {
    if (typeof v === "string") return isPlainText(v) ? undefined : where;
    if (isReflectMessage(v)) return badTextField(v, where);
    return undefined;
  };
  switch (field.fieldKind) {
    case "scalar":
    case "message":
      return check(value, at);
    case "list": {
      let i = 0;
      for (const item of value as Iterable<unknown>) {
        const found = check(item, `${at}[${i++}]`);
        if (found) return found;
      }
      return undefined;
    }
    case "map":
      for (const [key, item] of value as Iterable<[unknown, unknown]>) {
        const where = `${at}[${JSON.stringify(key)}]`;
        if (typeof key === "string" && !isPlainText(key)) return where;
        const found = check(item, where);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this check refuses.
const notPlain = /[\u0000\uFFFD]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isPlainText(text: string): boolean {
  return !notPlain.test(text);
}

function isReflectMessage(value: unknown): value is ReflectMessage {
  return typeof value === "object" && value !== null && "desc" in value && "fields" in value && "isSet" in value;
}

/** The decoded request's first field holding a NUL or invalid UTF-8, as a problem. */
export function textProblem(desc: DescMessage, message: unknown): WireProblem | undefined {
  const field = badTextField(reflect(desc, message as never));
  if (!field) return undefined;
  return { field, message: `${field}: must be UTF-8 text without NUL characters`, rule: "text" };
}

async function readUpTo(
  body: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<{ chunks: Uint8Array[]; rest?: AsyncIterator<Uint8Array> }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { chunks };
    chunks.push(next.value);
    size += next.value.byteLength;
    if (size > limit) return { chunks, rest: iterator };
  }
}

function replayOf(chunks: Uint8Array[], rest?: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  return (async function* () {
    try {
      yield* chunks;
      if (rest) for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
    } finally {
      await rest?.return?.(); // connect-es stopped reading (too large): let the request stream go
    }
  })();
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
