import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * The audit log is append only (docs/guide/dashboard.md#the-audit-log): the database itself refuses
 * to change an entry, and to delete one younger than 400 days (its retention), whatever the code
 * asks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create or replace function audit_log_append_only() returns trigger as $$
      begin
        if tg_op = 'UPDATE' then raise exception 'the audit log is append only: an entry is never changed'; end if;
        if old.at > to_char((now() - interval '400 days') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') then
          raise exception 'the audit log keeps entries 400 days: this one is younger';
        end if;
        return old;
      end; $$ language plpgsql`.execute(db);
    await sql`create trigger audit_log_append_only before update or delete on audit_log
      for each row execute function audit_log_append_only()`.execute(db);
  } else {
    await sql`create trigger audit_log_no_update before update on audit_log
      begin select raise(abort, 'the audit log is append only: an entry is never changed'); end`.execute(db);
    await sql`create trigger audit_log_no_early_delete before delete on audit_log
      when old.at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-400 days')
      begin select raise(abort, 'the audit log keeps entries 400 days: this one is younger'); end`.execute(db);
  }
}
