import pino, { type DestinationStream, type Logger } from "pino";

/**
 * The service's structured log (JSON lines on stdout). Secrets never reach it by design (keys,
 * codes and seeds are not put in log fields); the redaction is the second line of defence.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: [...redactPaths] };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * What the log redacts. Each path names a key inside an object (it has a dot), never a top-level
 * field: the access log's success line, five plain top-level values, is written without the
 * redaction's walk (server/interceptors.ts), which such a path could not match anyway.
 */
export const redactPaths: readonly string[] = [
  "req.headers.authorization",
  "req.headers.cookie",
  "*.apiKey",
  "*.api_key",
  "*.secret",
  "*.password",
  "*.token",
];
