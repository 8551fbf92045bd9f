// What the Teams stand-in reads of the Adaptive Cards a bot sends: each action's title and data.
/** The buttons of the Adaptive Cards an activity carries, with the data each submits. */
export function buttonsOf(
  activity: Record<string, unknown>,
): readonly { readonly title: string; readonly data: Readonly<Record<string, unknown>> }[] {
  const attachments = Array.isArray(activity.attachments) ? (activity.attachments as unknown[]) : [];
  const buttons: { title: string; data: Record<string, unknown> }[] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    if (
      typeof record.type === 'string' &&
      record.type.startsWith('Action.') &&
      typeof record.data === 'object'
    ) {
      buttons.push({ title: String(record.title), data: record.data as Record<string, unknown> });
    }
    for (const value of Object.values(record)) visit(value);
  };
  for (const attachment of attachments) visit((attachment as { content?: unknown }).content);
  return buttons;
}
