import {
  getOption,
  hasOption,
  type DescEnum,
  type DescFile,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";
import { http } from "../../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../../gen/google/api/http_pb.js";
import { idempotencyKeyPath } from "../../src/domain/method-idempotency.js";
import { enumSchema, fieldSchema, messageSchema, schemaRef, type JsonSchema } from "./json-schema.js";

/** Services called with the merchant's API key (the hosted page's calls carry their link token instead). */
const keyAuthenticated = new Set(["payments.v1.PaymentService", "payments.v1.SandboxService"]);

/** The customer app's calls but its two sign-in steps need its session cookie and the x-csrf-token header. */
function securityOf(service: DescService, method: DescMethod): JsonSchema[] {
  if (keyAuthenticated.has(service.typeName)) return [{ apiKey: [] }];
  if (service.typeName === "payments.v1.CustomerAppService" && !/^(SendSignInCode|VerifySignInCode)$/.test(method.name))
    return [{ customerSession: [], customerCsrf: [] }];
  return [];
}

/** An annotated method's verb and path template, from its google.api.http rule. */
export function httpBindingOf(method: DescMethod): { verb: string; path: string; body: string } | undefined {
  if (!hasOption(method, http)) return undefined;
  const rule: HttpRule = getOption(method, http);
  const { pattern } = rule;
  if (pattern.case === undefined) return undefined;
  const [verb, template] =
    pattern.case === "custom" ? [pattern.value.kind.toLowerCase(), pattern.value.path] : [pattern.case, pattern.value];
  return { verb, path: template.replace(/\{([^}=]+)=[^}]*\}/g, "{$1}"), body: rule.body };
}

/**
 * The OpenAPI 3.1 document of the plain HTTP paths: every method with a google.api.http rule,
 * its parameters and bodies in the protobuf JSON mapping, and the Connect error body.
 */
export function openApiDocument(files: readonly DescFile[]): JsonSchema {
  const schemas = new Map<string, JsonSchema>();
  const use = (type: DescMessage | DescEnum) => {
    if (schemas.has(type.typeName)) return;
    schemas.set(type.typeName, {}); // reserve first: messages may refer to themselves
    schemas.set(type.typeName, type.kind === "enum" ? enumSchema(type) : messageSchema(type, use));
  };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const tags: JsonSchema[] = [];
  for (const service of files.flatMap((f) => f.services)) {
    const annotated = service.methods.filter((m) => httpBindingOf(m));
    if (annotated.length === 0) continue;
    tags.push({ name: service.name, description: getComments(service).leading?.trim() ?? service.typeName });
    for (const method of annotated) {
      const binding = httpBindingOf(method)!;
      (paths[binding.path] ??= {})[binding.verb] = operation(service, method, binding, use);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "furikomi merchant API",
      version: "v1",
      description:
        "The plain HTTP + JSON paths of furikomi, generated from proto/payments/v1 (google.api.http annotations). " +
        "Requests accept lowerCamelCase and snake_case field names; responses are lowerCamelCase with every field present. " +
        "Every RPC is also served over Connect, gRPC and gRPC-Web.",
    },
    servers: [{ url: "http://localhost:8080", description: "a local sandbox (npm start)" }],
    tags,
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: "The merchant's API key: sk_test_… (sandbox) or sk_live_…",
        },
        customerSession: {
          type: "apiKey",
          in: "cookie",
          name: "furikomi_app_session",
          description: "The customer app's session (docs/guide/customer-app.md), set by VerifySignInCode",
        },
        customerCsrf: {
          type: "apiKey",
          in: "header",
          name: "x-csrf-token",
          description: "The customer app session's CSRF token (VerifySignInCode's csrfToken)",
        },
      },
      responses: {
        Error: {
          description: "A Connect error; the catalogued code is in details[].debug.reason",
          content: { "application/json": { schema: schemaRef("connect.Error") } },
        },
      },
      schemas: {
        ...Object.fromEntries([...schemas].sort(([a], [b]) => (a < b ? -1 : 1))),
        "connect.Error": connectErrorSchema,
      },
    },
  };
}

function operation(
  service: DescService,
  method: DescMethod,
  binding: { verb: string; path: string; body: string },
  use: (type: DescMessage | DescEnum) => void,
): JsonSchema {
  const pathFields = [...binding.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const fieldByName = new Map(method.input.fields.map((f) => [f.name, f]));
  const parameters: JsonSchema[] = pathFields.map((name) => {
    const field = fieldByName.get(name);
    if (!field)
      throw new Error(`${method.parent.typeName}.${method.name}: path variable {${name}} is not a request field`);
    return { name, in: "path", required: true, schema: fieldSchema(field, use) };
  });
  if (binding.body === "") {
    // No body: the remaining top-level fields are query parameters.
    for (const field of method.input.fields) {
      if (pathFields.includes(field.name) || field.fieldKind === "message" || field.fieldKind === "map") continue;
      parameters.push({ name: field.name, in: "query", required: false, schema: fieldSchema(field, use) });
    }
  }
  if (idempotencyKeyPath(method)) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "At most 255 characters. The same key and request answer the first response again (see docs/guide/idempotency.md).",
      schema: { type: "string", maxLength: 255 },
    });
  }
  const op: JsonSchema = {
    operationId: `${service.name}_${method.name}`,
    tags: [service.name],
    summary: getComments(method).leading?.trim().split("\n")[0] ?? method.name,
    description: `RPC ${service.typeName}/${method.name}.`,
    ...(method.deprecated ? { deprecated: true } : {}),
    security: securityOf(service, method),
    ...(parameters.length ? { parameters } : {}),
    responses: {
      "200": { description: "OK", content: { "application/json": { schema: messageRef(method.output, use) } } },
      default: { $ref: "#/components/responses/Error" },
    },
  };
  if (binding.body !== "")
    op.requestBody = {
      required: true,
      content: {
        "application/json": { schema: requestBodySchema(method, binding.body, pathFields, use) },
      },
    };
  return op;
}

function requestBodySchema(
  method: DescMethod,
  body: string,
  pathFields: string[],
  use: (type: DescMessage | DescEnum) => void,
): JsonSchema {
  if (body !== "*") {
    const field = method.input.fields.find((f) => f.name === body);
    if (!field) throw new Error(`${method.parent.typeName}.${method.name}: body field ${body} is not a request field`);
    return fieldSchema(field, use);
  }
  if (pathFields.length === 0) return messageRef(method.input, use);
  // The path variables are not part of the body.
  return messageSchema(method.input, use, new Set(pathFields));
}

function messageRef(message: DescMessage, use: (type: DescMessage | DescEnum) => void): JsonSchema {
  use(message);
  return schemaRef(message.typeName);
}

/** The Connect error JSON every failure answers with (docs/reference/contract.md#errors). */
const connectErrorSchema: JsonSchema = {
  type: "object",
  required: ["code"],
  properties: {
    code: {
      type: "string",
      description: "Connect code: invalid_argument, unauthenticated, not_found, aborted, internal, unavailable, …",
      examples: ["internal"],
    },
    message: { type: "string" },
    details: {
      type: "array",
      items: {
        type: "object",
        properties: {
          type: { type: "string", examples: ["google.rpc.ErrorInfo"] },
          value: { type: "string", contentEncoding: "base64" },
          debug: {
            type: "object",
            description:
              "The detail as JSON; for google.rpc.ErrorInfo, reason is the catalogued code (ERROR_TYPE_… or ON_SESSION_PAYMENT_ERROR_CODE_…)",
            additionalProperties: true,
          },
        },
      },
    },
  },
};
