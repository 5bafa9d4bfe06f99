import { create, toBinary, type DescFile, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

type AnyRequest = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

/**
 * gRPC server reflection (v1 and v1alpha), so `buf curl` and grpcurl need no schema: it answers
 * from the same descriptors the server runs on.
 */
export function registerReflection(router: ConnectRouter, registry: FileRegistry, serviceNames: string[]): void {
  const answer = (request: AnyRequest) => reflect(request, registry, serviceNames);
  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield create(v1.ServerReflectionResponseSchema, answer(request) as never);
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests)
        yield create(v1alpha.ServerReflectionResponseSchema, answer(request) as never);
    },
  });
}

function reflect(request: AnyRequest, registry: FileRegistry, serviceNames: string[]) {
  const base = { validHost: request.host, originalRequest: request };
  const ask = request.messageRequest;
  const notFound = (what: string) => ({
    ...base,
    messageResponse: { case: "errorResponse", value: { errorCode: 5, errorMessage: `${what} not found` } },
  });
  switch (ask.case) {
    case "listServices":
      return {
        ...base,
        messageResponse: { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } },
      };
    case "fileByFilename": {
      const file = registry.getFile(ask.value);
      return file ? filesResponse(base, file) : notFound(`file ${ask.value}`);
    }
    case "fileContainingSymbol": {
      const file = fileOfSymbol(registry, ask.value);
      return file ? filesResponse(base, file) : notFound(`symbol ${ask.value}`);
    }
    case "fileContainingExtension": {
      const ext = registry.getExtensionFor(registry.getMessage(ask.value.containingType)!, ask.value.extensionNumber);
      return ext ? filesResponse(base, ext.file) : notFound(`extension ${ask.value.extensionNumber}`);
    }
    case "allExtensionNumbersOfType": {
      const numbers: number[] = [];
      for (const type of registry)
        if (type.kind === "extension" && type.extendee.typeName === ask.value) numbers.push(type.number);
      return {
        ...base,
        messageResponse: {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: ask.value, extensionNumber: numbers },
        },
      };
    }
    default:
      return notFound("request");
  }
}

function fileOfSymbol(registry: FileRegistry, symbol: string): DescFile | undefined {
  const name = symbol.replace(/^\./, "");
  const direct = registry.get(name);
  if (direct) return direct.file;
  // A method or field name: look up its parent.
  return registry.get(name.slice(0, name.lastIndexOf(".")))?.file;
}

/** The file and everything it imports, each as serialized FileDescriptorProto. */
function filesResponse(base: object, file: DescFile) {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const visit = (f: DescFile) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    out.push(toBinary(FileDescriptorProtoSchema, f.proto));
    f.dependencies.forEach(visit);
  };
  visit(file);
  return { ...base, messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: out } } };
}
