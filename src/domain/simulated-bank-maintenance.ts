/**
 * The sandbox's simulated bank under maintenance (docs/guide/simulated-bank.md): a merchant's whole
 * bank, or one account, until a time or (no time) until switched off.
 */
export interface SimulatedBankMaintenance {
  underMaintenance: boolean;
  maintenanceUntil: Date | null;
}

/** Whether it is under maintenance at `now`: a time, when set, decides. */
export function underMaintenanceAt(flag: boolean, until: Date | null, now: Date): boolean {
  return until ? now < until : flag;
}
