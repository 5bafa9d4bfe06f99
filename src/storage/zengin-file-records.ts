import { itemKindOf, type ZenginFileKind, type ZenginItemState } from "../domain/zengin-records.js";
import type { Tx } from "./transactor.js";

/** One record of a Zengin file as the dashboard lists it (DashboardService.ListZenginFileRecords). */
export interface ZenginFileRecordRow {
  customerNumber: string;
  /** trx-* of a debit, rfd-* of a transfer. */
  reference: string;
  /** The charge debited, or the one the refund pays back. */
  chargeId: string;
  customerId: string;
  amount: number;
  state: ZenginItemState;
  resultCode: number | null;
}

/**
 * A page of the records of one of the merchant's files, in 顧客番号 order after `after`, by the
 * items' (file_id, customer_number) index; a received result file lists the request file it
 * answers. Undefined when the file is not the merchant's.
 */
export async function zenginFileRecordsPage(
  db: Tx,
  merchantId: string,
  fileId: string,
  after: string,
  limit: number,
): Promise<{ name: string; kind: ZenginFileKind | ""; records: ZenginFileRecordRow[] } | undefined> {
  const file = await db
    .selectFrom("zengin_files")
    .select(["id", "name", "kind", "direction", "answers"])
    .where("id", "=", fileId)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  if (!file) return undefined;
  const kind = file.kind as ZenginFileKind | "";
  const itemsFileId = file.direction === "in" ? file.answers : file.id;
  if (!itemsFileId || !kind) return { name: file.name, kind, records: [] };
  const base = (table: "zengin_debits" | "zengin_transfers") =>
    db
      .selectFrom(`${table} as i`)
      .where("i.file_id", "=", itemsFileId)
      .where("i.merchant_id", "=", merchantId)
      .where("i.customer_number", ">", after)
      .orderBy("i.customer_number")
      .limit(limit);
  const rows =
    itemKindOf(kind) === "zengin_debits"
      ? await base("zengin_debits")
          .leftJoin("charges as c", "c.id", "i.reference")
          .select(["i.customer_number", "i.reference", "i.amount", "i.state", "i.result_code", "c.id as charge_id"])
          .select("c.customer_id")
          .execute()
      : await base("zengin_transfers")
          .leftJoin("refunds as r", "r.id", "i.reference")
          .leftJoin("charges as c", "c.id", "r.charge_id")
          .select(["i.customer_number", "i.reference", "i.amount", "i.state", "i.result_code", "c.id as charge_id"])
          .select("c.customer_id")
          .execute();
  return {
    name: file.name,
    kind,
    records: rows.map((row) => ({
      customerNumber: row.customer_number ?? "",
      reference: row.reference,
      chargeId: row.charge_id ?? "",
      customerId: row.customer_id ?? "",
      amount: Number(row.amount),
      state: row.state as ZenginItemState,
      resultCode: row.result_code === null ? null : Number(row.result_code),
    })),
  };
}
