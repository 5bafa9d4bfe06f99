import { loadConfig } from "./config.js";
import { startService } from "./composition-root.js";

const config = loadConfig();
const service = await startService(config);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, "shutting down");
    service.close().then(
      () => {
        service.logger.info({ signal }, "stopped");
        process.exit(0);
      },
      (error) => {
        service.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
