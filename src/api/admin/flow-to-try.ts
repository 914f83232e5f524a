/**
 * The flow an operator tries (a test chat) or tests (conversation tests): the draft as saved (the
 * current version when there is none), the current version, or a version by number.
 */
import { BotwireError } from '../../shared/errors.ts';
import type { TestChatSource } from '../../shared/flows/test-chats.ts';
import type { FlowVersionStore } from '../../shared/flows/version-store.ts';

export type WantedFlow = 'draft' | 'current' | number | undefined;

/** @throws BotwireError `BW_ERR_NO_DRAFT` (draft asked, none saved), `BW_ERR_NOT_FOUND` */
export async function flowToTry(
  versions: FlowVersionStore,
  appId: string,
  wanted: WantedFlow,
): Promise<{ flow: Record<string, unknown>; source: TestChatSource }> {
  if (wanted === undefined || wanted === 'draft') {
    const draft = await versions.draft(appId);
    if (draft) return { flow: draft.flow, source: { draft: draft.revision } };
    if (wanted === 'draft') throw new BotwireError('BW_ERR_NO_DRAFT', 'this bot has no draft');
  }
  const version =
    typeof wanted === 'number' ? await versions.get(appId, wanted) : await versions.current(appId);
  if (!version) throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such flow version');
  return { flow: version.flow, source: { version: version.version } };
}
