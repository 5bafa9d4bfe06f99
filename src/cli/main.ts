import { parseArgs } from "node:util";
import pino from "pino";
import { loadConfig, type Config } from "../config.js";
import { preflight } from "../preflight.js";
import { systemClock } from "../ports/clock.js";
import { openStorage } from "../storage/database.js";
import { useSealingKey } from "../storage/sealed.js";
import { backupSqlite, resealSecrets } from "../storage/maintenance.js";
import { Transactor } from "../storage/transactor.js";
import { FirstDebitVerifier } from "../ports/mandate-verifier.js";
import {
  createMerchant,
  listAllMerchants,
  rotateApiKey,
  setSupportContact,
  setWebhookUrl,
  updateConsignor,
} from "../flows/merchants.js";
import { exportMandates } from "../flows/mandates.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { createDashboardUser } from "../flows/dashboard-auth.js";
import { removeUserByEmail, resetPasswordByEmail, resetTotpByEmail, usersOfMerchant } from "../flows/team.js";
import { readOperatorMailbox } from "../flows/sandbox.js";
import { isRoleName } from "../domain/dashboard-role.js";
import { reconcile } from "../flows/reconcile.js";
import { listen } from "./listen.js";
import { SandboxBank } from "../ports/sandbox-bank.js";
import { ZenginBank } from "../ports/zengin-bank.js";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { consignorView, listZenginFiles, showZenginFile } from "../flows/zengin-cli-views.js";
import { runZenginCycle } from "../flows/zengin-cycle.js";
import { zenginContractsCommand } from "./zengin-contracts-command.js";
import { merchantsReviewCommand } from "./merchants-review-command.js";
import { zenginExchangeOf } from "../flows/zengin-exchange.js";
import { importResultFile } from "../flows/zengin-result-import.js";
import { notifierForMode } from "../ports/notifier-for-mode.js";
import type { FlowContext } from "../flows/flow-context.js";
import { modeRulesOf } from "../domain/mode.js";

const usage = `usage: furikomi <command>

  merchants create --name NAME [--webhook-url URL] [--logo-url URL]
      Provisions a merchant; prints JSON with merchant_id, api_key and webhook_secret (shown once).
  merchants list
      Lists merchants as JSON (with webhook_failing and its reason).
  merchants set-webhook --merchant MERCHANT_ID --webhook-url URL
      Changes the webhook URL ("" removes it); pending events are sent to it at once.
  merchants set-contact --merchant MERCHANT_ID [--email E] [--phone P] [--url https://…]
      Sets the support contact customers see on the direct-debit consent screen (a field not
      given is cleared).
  merchants review [list]
      Lists the merchants whose going-live checklist waits for review, with their checklists.
  merchants review show|approve|reinstate --id MERCHANT_ID
  merchants review send-back|suspend --id MERCHANT_ID --reason TEXT
      Shows one checklist; approves it (live payments and live keys from then on); sends it back
      (the reason is e-mailed to the owners and shown on the dashboard); suspends the merchant (no
      payments anywhere) or lifts a suspension. Each decision is in the merchant's audit log.
  mandates export --merchant MERCHANT_ID [--contract CONTRACT_ID]
      Prints the merchant's direct-debit mandates (consent evidence: terms version and text,
      time, client address, user agent, account hash, masked account) as JSON, oldest first.
  merchants update --id MERCHANT_ID --consignor-code 10_DIGITS --consignor-name KANA
         --consignor-bank 4_DIGITS [--consignor-bank-name KANA] --consignor-branch 3_DIGITS
         [--consignor-branch-name KANA] --consignor-account-type 1|2|9 --consignor-account 7_DIGITS
         [--transfer-code 10_DIGITS] [--debit-day 1-28] [--consignor-name-characters "/"]
      Sets the merchant's one Zengin consignor contract (委託者) for BANK_CONNECTOR=zengin: an
      agent contract for every bank but ゆうちょ; with --debit-day charges are debited on that day
      of the month; --transfer-code is the 振込依頼人コード of refund transfer files (default: the
      consignor code). Names are written to the 全銀協 character rules; --consignor-name-characters
      adds some of ( ) - . / where the bank accepts them. A merchant with several contracts uses
      zengin contracts update.
  keys rotate --merchant MERCHANT_ID
      Revokes the merchant's API keys and prints a new one.
  users add --merchant MERCHANT_ID --email EMAIL [--role owner|admin|operator|viewer]
         [--password P | --password-stdin]
      Adds a dashboard user (an owner unless --role says otherwise; "users create" is the same);
      the password also comes from FURIKOMI_PASSWORD. Owners invite the rest of the team in /dashboard.
  users list --merchant MERCHANT_ID
      Lists the merchant's dashboard users with their roles.
  users reset-password --email EMAIL [--password P | --password-stdin]
      Sets a user's new password; their sessions end (TOTP stays as it was).
  users reset-totp --email EMAIL
      Turns a user's TOTP off (a lost phone); they enrol again at their next sign-in.
  users remove --email EMAIL
      Removes a user: their sessions end at once (the merchant must keep an owner).
  sandbox mailbox [--email EMAIL]
      Sandbox: the operator's mailbox, newest first: the customer app's sign-in codes and the
      team's invitation and password-reset links, which no merchant's API key reads.

  zengin contracts list --merchant MERCHANT_ID
      Lists the merchant's 口座振替 contracts (scope, banks, codes, account, debit day, result
      style, name characters) as JSON.
  zengin contracts add --merchant MERCHANT_ID --scope bank|agent|yucho --code 10_DIGITS
         --transfer-code 10_DIGITS --name KANA --bank 4_DIGITS [--bank-name KANA] --branch 3_DIGITS
         [--branch-name KANA] --account-type 1|2|9 --account 7_DIGITS [--banks CODE,CODE…]
         [--debit-day 1-28] [--result-style all|failures_only] [--name-characters "/"]
      Adds a contract: bank (debits accounts at --bank only), agent (the --banks listed, or every
      bank but ゆうちょ) or yucho (ゆうちょ銀行 9900 only; --bank 9900). The code is unique across merchants.
      --result-style failures_only: the bank's result files list only the failed debits (不能分のみ);
      the debits not listed were debited (default all: every debit answered).
  zengin contracts update --merchant MERCHANT_ID --code CODE [any flag of add]
      Changes the flags given; the rest stay as they were.
  zengin contracts remove --merchant MERCHANT_ID --code CODE
      Removes a contract (refused while debits or transfers wait for its next file).
  zengin files list
      Lists the Zengin files sent and received (state, counts, amounts, quarantine reason).
  zengin files show FILE
      Decodes a Zengin file (a name in ZENGIN_DIR's folders, or a path) record by record.
  zengin import FILE
      Imports a result file downloaded by hand (validated whole; applied, or quarantined).
  zengin run
      Runs one file cycle now: writes due request files, imports what is in incoming/.
  reconcile
      Checks the money invariants (docs/reference/invariants.md) over the whole database: prints
      one line per violation and exits 1 if there is any (0 and "no violations" otherwise).

  backup --to FILE
      An online backup of the SQLite database (safe while the server runs); prints the page
      count and the copy's integrity_check.
  secrets reseal
      Seals every stored secret again under SECRETS_KEY (after a rotation; the old key in
      SECRETS_KEY_PREVIOUS).

  doctor
      Checks the configuration (the environment) against what production needs: SECRETS_KEY,
      e-mail, BANK_CONNECTOR, an https PUBLIC_BASE_URL. Exits 1 when MODE=production would
      refuse to start.

  listen --api-key sk_test_… --forward-to http://127.0.0.1:3000/webhooks
         [--base-url http://localhost:8080] [--secret whsec_…] [--interval-ms 1000]
      Polls the merchant's events through the API and forwards each new one to a local URL,
      re-signed (with --secret, or a session secret it prints); one line per event.

Except for listen, the database is DATABASE_URL (default: the SQLite file ./data/furikomi.db), as for the server.`;

/** Commands that need only the database (no server) run against a flow context of their own. */
async function withContext<T>(run: (ctx: FlowContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  useSealingKey(config.secretsKey, config.previousSecretsKeys);
  const storage = await openStorage(config.databaseUrl);
  const tx = new Transactor(storage);
  try {
    return await run({
      tx,
      clock: systemClock,
      config,
      mode: modeRulesOf(config.mode),
      bank: config.bankConnector === "zengin" ? new ZenginBank(tx, config) : new SandboxBank(tx),
      notifier: notifierForMode(modeRulesOf(config.mode), config.smtp, tx),
      verifiers: { firstDebit: new FirstDebitVerifier() },
      wake: () => {},
    });
  } finally {
    await storage.close();
  }
}

function doctor(): undefined {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    throw new CommandFailed(`configuration: ${(error as Error).message}`);
  }
  const checks = preflight(config);
  const production = config.mode === "production";
  console.log(`furikomi doctor: MODE=${config.mode}`);
  for (const check of checks)
    console.log(`  ${check.ok ? "ok  " : production ? "FAIL" : "note"}  ${check.name}: ${check.detail}`);
  const problems = checks.filter((check) => !check.ok).length;
  if (problems > 0 && production) throw new CommandFailed(`${problems} problem(s): MODE=production refuses to start`);
  console.log(problems > 0 ? `${problems} setting(s) to change before MODE=production` : "ready for MODE=production");
  return undefined;
}

const commands: Record<string, (args: string[]) => Promise<unknown>> = {
  doctor: async () => doctor(),
  "merchants create": async (args) => {
    const { values } = parseArgs({
      args,
      options: { name: { type: "string" }, "webhook-url": { type: "string" }, "logo-url": { type: "string" } },
    });
    if (!values.name) throw new UsageError("--name is required");
    return withContext((ctx) =>
      createMerchant(ctx, { name: values.name!, webhookUrl: values["webhook-url"], logoUrl: values["logo-url"] }),
    );
  },
  "merchants list": async () => withContext((ctx) => listAllMerchants(ctx)),
  "merchants update": async (args) => {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(
        [
          "id",
          "consignor-code",
          "consignor-name",
          "consignor-bank",
          "consignor-bank-name",
          "consignor-branch",
          "consignor-branch-name",
          "consignor-account-type",
          "consignor-account",
          "transfer-code",
          "debit-day",
          "consignor-name-characters",
        ].map((name) => [name, { type: "string" as const }]),
      ),
    });
    const required = [
      "id",
      "consignor-code",
      "consignor-name",
      "consignor-bank",
      "consignor-branch",
      "consignor-account-type",
      "consignor-account",
    ];
    const missing = required.filter((name) => values[name] === undefined);
    if (missing.length > 0) throw new UsageError(`${missing.map((name) => `--${name}`).join(", ")} required`);
    const value = (name: string) => String(values[name] ?? "");
    return withContext(async (ctx) => ({
      merchant_id: value("id"),
      consignor: consignorView(
        await updateConsignor(ctx, value("id"), {
          code: value("consignor-code"),
          name: value("consignor-name"),
          bankCode: value("consignor-bank"),
          bankName: value("consignor-bank-name"),
          branchCode: value("consignor-branch"),
          branchName: value("consignor-branch-name"),
          accountType: value("consignor-account-type"),
          accountNumber: value("consignor-account"),
          transferCode: value("transfer-code"),
          debitDay: value("debit-day"),
          nameCharacters: values["consignor-name-characters"],
        }),
      ),
    }));
  },
  "zengin contracts": async (args) => zenginContractsCommand(args, withContext, (message) => new UsageError(message)),
  "merchants review": async (args) => merchantsReviewCommand(args, withContext, (message) => new UsageError(message)),
  "zengin files": async (args) => {
    const [verb, file] = args;
    if (verb === "list") return withContext((ctx) => listZenginFiles(ctx));
    if (verb === "show" && file) return showZenginFile(loadConfig().zengin.dir, file);
    throw new UsageError("zengin files list | zengin files show FILE");
  },
  "zengin import": async (args) => {
    if (!args[0]) throw new UsageError("zengin import FILE");
    const bytes = await readFile(args[0]);
    const name = basename(args[0]);
    const outcome = await withContext((ctx) =>
      importResultFile(
        ctx,
        cliExchange(ctx, () => {}),
        name,
        bytes,
      ),
    );
    // A quarantine is a failure of the command: exit 1, and why (docs/reference/cli.md).
    if (!outcome.ok)
      throw new CommandFailed(
        `quarantined ${name}: ${outcome.reason} (nothing of it was applied; kept in quarantine/)`,
      );
    return outcome;
  },
  "zengin run": async () => withContext((ctx) => runZenginCycle(ctx, cliExchange(ctx))),
  "merchants set-webhook": async (args) => {
    const { values } = parseArgs({
      args,
      options: { merchant: { type: "string" }, "webhook-url": { type: "string" } },
    });
    if (!values.merchant || values["webhook-url"] === undefined)
      throw new UsageError("--merchant and --webhook-url are required");
    return withContext((ctx) => setWebhookUrl(ctx, values.merchant!, values["webhook-url"]!));
  },
  "merchants set-contact": async (args) => {
    const { values } = parseArgs({
      args,
      options: {
        merchant: { type: "string" },
        email: { type: "string" },
        phone: { type: "string" },
        url: { type: "string" },
      },
    });
    if (!values.merchant) throw new UsageError("--merchant is required");
    return withContext((ctx) =>
      setSupportContact(ctx, values.merchant!, {
        email: values.email ?? "",
        phone: values.phone ?? "",
        url: values.url ?? "",
      }),
    );
  },
  "mandates export": async (args) => {
    const { values } = parseArgs({ args, options: { merchant: { type: "string" }, contract: { type: "string" } } });
    if (!values.merchant) throw new UsageError("--merchant is required");
    return withContext((ctx) => exportMandates(ctx, values.merchant!, values.contract));
  },
  listen: async (args) => {
    const { values } = parseArgs({
      args,
      options: {
        "api-key": { type: "string" },
        "forward-to": { type: "string" },
        "base-url": { type: "string", default: "http://localhost:8080" },
        secret: { type: "string" },
        "interval-ms": { type: "string", default: "1000" },
      },
    });
    if (!values["api-key"] || !values["forward-to"]) throw new UsageError("--api-key and --forward-to are required");
    await listen({
      apiKey: values["api-key"],
      forwardTo: values["forward-to"],
      baseUrl: values["base-url"].replace(/\/$/, ""),
      secret: values.secret,
      intervalMs: Number(values["interval-ms"]),
    });
    return undefined;
  },
  "users add": async (args) => addUser(args),
  "users create": async (args) => addUser(args),
  "users list": async (args) => {
    const { values } = parseArgs({ args, options: { merchant: { type: "string" } } });
    if (!values.merchant) throw new UsageError("--merchant is required");
    return withContext((ctx) => usersOfMerchant(ctx, values.merchant!));
  },
  "users reset-password": async (args) => {
    const { values } = parseArgs({ args, options: { email: { type: "string" }, ...passwordOptions } });
    if (!values.email) throw new UsageError("--email is required");
    const password = await passwordOf(values);
    return withContext((ctx) => resetPasswordByEmail(ctx, values.email!, password));
  },
  "users reset-totp": async (args) => {
    const email = emailArgument(args);
    return withContext((ctx) => resetTotpByEmail(ctx, email));
  },
  "users remove": async (args) => {
    const email = emailArgument(args);
    return withContext((ctx) => removeUserByEmail(ctx, email));
  },
  "sandbox mailbox": async (args) => {
    const { values } = parseArgs({ args, options: { email: { type: "string" } } });
    const messages = await withContext((ctx) => readOperatorMailbox(ctx, values.email ?? ""));
    return messages.map(({ to, subject, body, code, sentAt }) => ({ to, subject, body, code, sentAt }));
  },
  backup: async (args) => {
    const { values } = parseArgs({ args, options: { to: { type: "string" } } });
    if (!values.to) throw new UsageError("--to is required");
    return backupSqlite(loadConfig().databaseUrl, values.to);
  },
  reconcile: async () => {
    const violations = await withContext((ctx) => reconcile(ctx));
    if (violations.length === 0) {
      console.log("no violations");
      return undefined;
    }
    throw new CommandFailed(violations.map((v) => `${v.subject} ${v.rule}: ${v.detail}`).join("\n"));
  },
  "secrets reseal": async () => withContext((ctx) => resealSecrets(ctx.tx.db)),
  "keys rotate": async (args) => {
    const { values } = parseArgs({ args, options: { merchant: { type: "string" } } });
    if (!values.merchant) throw new UsageError("--merchant is required");
    return withContext((ctx) => rotateApiKey(ctx, values.merchant!));
  },
};

class UsageError extends Error {}

const passwordOptions = { password: { type: "string" }, "password-stdin": { type: "boolean" } } as const;

/** The password from --password, --password-stdin or FURIKOMI_PASSWORD. */
async function passwordOf(values: { password?: string; "password-stdin"?: boolean }): Promise<string> {
  const password = values["password-stdin"]
    ? (await readStdin()).replace(/\r?\n$/, "")
    : (values.password ?? process.env.FURIKOMI_PASSWORD);
  if (!password) throw new UsageError("give the password with --password, --password-stdin or FURIKOMI_PASSWORD");
  return password;
}

function emailArgument(args: string[]): string {
  const { values } = parseArgs({ args, options: { email: { type: "string" } } });
  if (!values.email) throw new UsageError("--email is required");
  return values.email;
}

async function addUser(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { merchant: { type: "string" }, email: { type: "string" }, role: { type: "string" }, ...passwordOptions },
  });
  if (!values.merchant || !values.email) throw new UsageError("--merchant and --email are required");
  const role = values.role ?? "owner";
  if (!isRoleName(role)) throw new UsageError("--role is one of owner, admin, operator, viewer");
  const password = await passwordOf(values);
  return withContext((ctx) =>
    createDashboardUser(ctx, { merchantId: values.merchant!, email: values.email!, password, role }),
  );
}

/** The exchange as the server runs it; a quarantine and the other notices are told on standard error. */
function cliExchange(
  ctx: FlowContext,
  onQuarantine = (file: { name: string; reason: string }) => console.error(`quarantined ${file.name}: ${file.reason}`),
) {
  return zenginExchangeOf(ctx, onQuarantine, {
    onPaidAfterFailure: (file) =>
      console.error(`${file.name}: refunds recorded as failed were paid: ${file.refunds.join(", ")}`),
    onUnexpectedName: (file) => console.error(`unexpected file name in incoming/: ${file.name}`),
  });
}
/** A command that ran and found something wrong: its message is printed, the exit code is 1. */
class CommandFailed extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function main(argv: string[]): Promise<number> {
  const [group, verb, ...rest] = argv;
  const command = commands[`${group} ${verb}`] ?? commands[group ?? ""];
  if (!command) {
    console.error(usage);
    return group && group !== "help" && group !== "--help" ? 2 : 0;
  }
  try {
    const result = await command(commands[`${group} ${verb}`] ? rest : [verb, ...rest].filter(Boolean));
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof PaymentFailure || error instanceof RequestRefusal || error instanceof CommandFailed) {
      console.error(error.message);
      return 1;
    }
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      return 2;
    }
    pino().error({ err: error }, "command failed");
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
