import type { ApproverPolicy } from '../outcomes.js';

/** Whether `userId` may answer under a confirmation's approver policy. */
export function mayAnswer(
  view: { readonly approvers: ApproverPolicy; readonly requester: string },
  userId: string,
): boolean {
  const policy = view.approvers;
  if (policy === 'requester') return userId === view.requester;
  return policy === 'any' || policy.includes(userId);
}
