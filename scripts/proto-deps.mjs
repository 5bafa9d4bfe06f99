// Gathers the third-party .proto imports into .proto-deps/ (git-ignored), a module that buf.yaml names.
// google/api, google/rpc, gRPC reflection and health come from npm packages as files; protovalidate's
// validate.proto is not published as a file anywhere npm reaches, so it is printed back to .proto source
// from the descriptor that @bufbuild/protovalidate embeds (same names, numbers and types).
import { cpSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const root = join(dirname(new URL(import.meta.url).pathname), "..");
const out = join(root, ".proto-deps");
const require = createRequire(join(root, "package.json"));

function packageDir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

const copies = [
  ["google-proto-files", "google/api/annotations.proto"],
  ["google-proto-files", "google/api/http.proto"],
  ["google-proto-files", "google/rpc/error_details.proto"],
  ["google-proto-files", "google/rpc/status.proto"],
  ["@grpc/reflection", "build/proto/grpc/reflection/v1/reflection.proto", "grpc/reflection/v1/reflection.proto"],
  [
    "@grpc/reflection",
    "build/proto/grpc/reflection/v1alpha/reflection.proto",
    "grpc/reflection/v1alpha/reflection.proto",
  ],
  ["grpc-health-check", "proto/health/v1/health.proto", "grpc/health/v1/health.proto"],
];

let missing = false;
for (const [pkg, from, to = from] of copies) {
  const dir = packageDir(pkg);
  if (!dir || !existsSync(join(dir, from))) {
    missing = true;
    continue;
  }
  mkdirSync(dirname(join(out, to)), { recursive: true });
  cpSync(join(dir, from), join(out, to));
}

// --- a small FileDescriptorProto printer: enough for proto2/proto3 files without custom option values ---

function printFile(file) {
  const lines = [`// Printed from the descriptor embedded in @bufbuild/protovalidate. Do not edit.`];
  lines.push(`syntax = "${file.syntax || "proto2"}";`, `package ${file.package};`);
  for (const dep of file.dependency ?? []) lines.push(`import "${dep}";`);
  const opts = file.options ?? {};
  for (const key of ["javaPackage", "javaOuterClassname", "goPackage"]) {
    if (opts[key]) lines.push(`option ${snake(key)} = "${opts[key]}";`);
  }
  if (opts.javaMultipleFiles) lines.push(`option java_multiple_files = true;`);
  for (const m of file.messageType ?? []) lines.push(...printMessage(m, file.syntax));
  for (const e of file.enumType ?? []) lines.push(...printEnum(e));
  lines.push(...printExtensions(file.extension ?? [], file.syntax));
  return lines.join("\n") + "\n";
}

function printMessage(m, syntax, indent = "") {
  const inner = indent + "  ";
  const lines = [`${indent}message ${m.name} {`];
  const oneofFields = new Map();
  for (const f of m.field ?? []) {
    if (f.oneofIndex !== undefined && !f.proto3Optional) {
      oneofFields.set(f.oneofIndex, [...(oneofFields.get(f.oneofIndex) ?? []), f]);
    } else {
      lines.push(inner + printField(f, syntax, true));
    }
  }
  (m.oneofDecl ?? []).forEach((o, i) => {
    const fields = oneofFields.get(i);
    if (!fields) return;
    lines.push(`${inner}oneof ${o.name} {`);
    for (const f of fields) lines.push(inner + "  " + printField(f, syntax, false));
    lines.push(`${inner}}`);
  });
  for (const r of m.reservedRange ?? []) lines.push(`${inner}reserved ${range(r.start, r.end - 1)};`);
  for (const n of m.reservedName ?? []) lines.push(`${inner}reserved "${n}";`);
  for (const r of m.extensionRange ?? []) lines.push(`${inner}extensions ${range(r.start, r.end - 1)};`);
  for (const n of m.nestedType ?? []) lines.push(...printMessage(n, syntax, inner));
  for (const e of m.enumType ?? []) lines.push(...printEnum(e, inner));
  lines.push(...printExtensions(m.extension ?? [], syntax, inner));
  lines.push(`${indent}}`);
  return lines;
}

function printExtensions(extensions, syntax, indent = "") {
  const byExtendee = new Map();
  for (const f of extensions) byExtendee.set(f.extendee, [...(byExtendee.get(f.extendee) ?? []), f]);
  const lines = [];
  for (const [extendee, fields] of byExtendee) {
    lines.push(`${indent}extend ${extendee} {`);
    for (const f of fields) lines.push(`${indent}  ${printField(f, syntax, true)}`);
    lines.push(`${indent}}`);
  }
  return lines;
}

function printField(f, syntax, withLabel) {
  const type = f.typeName || f.type.replace("TYPE_", "").toLowerCase();
  let label = "";
  if (withLabel) {
    if (f.label === "LABEL_REPEATED") label = "repeated ";
    else if (f.label === "LABEL_REQUIRED") label = "required ";
    else if (syntax !== "proto3" || f.proto3Optional) label = "optional ";
  }
  const options = [];
  if (f.defaultValue !== undefined && f.defaultValue !== "") {
    options.push(`default = ${f.type === "TYPE_STRING" ? JSON.stringify(f.defaultValue) : f.defaultValue}`);
  }
  if (f.options?.packed !== undefined) options.push(`packed = ${f.options.packed}`);
  if (f.options?.deprecated) options.push(`deprecated = true`);
  return `${label}${type} ${f.name} = ${f.number}${options.length ? ` [${options.join(", ")}]` : ""};`;
}

function printEnum(e, indent = "") {
  const lines = [`${indent}enum ${e.name} {`];
  for (const v of e.value ?? []) lines.push(`${indent}  ${v.name} = ${v.number};`);
  for (const r of e.reservedRange ?? []) lines.push(`${indent}  reserved ${range(r.start, r.end)};`);
  for (const n of e.reservedName ?? []) lines.push(`${indent}  reserved "${n}";`);
  lines.push(`${indent}}`);
  return lines;
}

function range(start, end) {
  if (end >= 536870911) return `${start} to max`;
  return start === end ? `${start}` : `${start} to ${end}`;
}

function snake(name) {
  return name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
}

const { file_buf_validate_validate } = await import("@bufbuild/protovalidate/gen/buf/validate/validate_pb.js");
const validate = join(out, "buf/validate/validate.proto");
mkdirSync(dirname(validate), { recursive: true });
const { toJson } = await import("@bufbuild/protobuf");
const { FileDescriptorProtoSchema } = await import("@bufbuild/protobuf/wkt");
// JSON leaves unset fields out, which is how presence (oneof_index, default_value) is read here.
writeFileSync(validate, printFile(toJson(FileDescriptorProtoSchema, file_buf_validate_validate.proto)));
if (missing) console.log("proto-deps: dev dependencies absent; only validate.proto written (buf generate needs them)");
