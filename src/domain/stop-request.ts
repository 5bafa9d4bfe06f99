/**
 * A customer's request that the merchant stop debiting under a contract (解約の依頼,
 * docs/guide/customer-app.md#asking-a-merchant-to-stop). It changes nothing by itself: the merchant
 * (or a Zengin result code 3) deactivates the contract. One per contract; asking again answers it.
 */
export interface StopRequestRecord {
  id: string;
  merchantId: string;
  customerId: string;
  contractId: string;
  reason: string;
  requestedAt: Date;
}
