import pino, { type DestinationStream, type Logger } from "pino";

/**
 * The service's structured log (JSON lines on stdout). Secrets never reach it by design (keys,
 * codes and seeds are not put in log fields); the redaction is the second line of defence.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: [
      "req.headers.authorization",
      "req.headers.cookie",
      "*.apiKey",
      "*.api_key",
      "*.secret",
      "*.password",
      "*.token",
    ],
  };
  return destination ? pino(options, destination) : pino(options);
}
