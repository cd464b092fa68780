import { useCallback, useMemo } from 'react';
import { chatFileAccept, directFileAccept, uuidv7 } from '@office/sync-protocol';
import { failureTexts } from '../../app/failure-messages';
import type { OutboxEntry } from '../../data/db';
import { draftKeys } from '../../data/drafts';
import { useMutate } from '../../data/hooks';
import { Composer, type ComposerProps } from './composer';
import { chatEmojis, directEmojis } from './emojis';
import { isDirectFile, toQueuedFiles } from './selected-files';

/** Spec section 8: above the composer, when the server gives no text of its own. */
const chatUploadFailed = failureTexts.chatUploadFailed;
const chatSendFailed = (withFiles: boolean): string =>
  withFiles ? chatUploadFailed : 'Your message could not be saved. Please try again.';
const directSendFailed = (): string => failureTexts.sendMessageError;

type ComposerSettings = Omit<ComposerProps, 'announcer' | 'mentionables' | 'onSend'>;

/**
 * The texts, files and emojis of the team chat's composer (`conversationId` null) or a conversation's (spec
 * sections 2, 5 and 8), and which refused upload is its own.
 */
function settingsOf(conversationId: string | null): ComposerSettings {
  if (conversationId === null) {
    return {
      draftKey: draftKeys.teamChat,
      placeholder: 'Type your message...',
      accept: chatFileAccept,
      emojis: chatEmojis,
      failureText: chatSendFailed,
      isRefusedUpload: (entry: OutboxEntry) => entry.name === 'chat.sendFiles',
      refusedUploadText: chatUploadFailed,
    };
  }
  return {
    draftKey: draftKeys.conversation(conversationId),
    placeholder: 'Type a message...',
    accept: directFileAccept,
    acceptsFile: isDirectFile,
    emojis: directEmojis,
    failureText: directSendFailed,
    isRefusedUpload: (entry: OutboxEntry) =>
      entry.name === 'dm.sendFiles' && (entry.args as { conversationId?: string }).conversationId === conversationId,
    refusedUploadText: failureTexts.sendMessageError,
  };
}

interface MessageComposerProps {
  /** The conversation written to; null for the team chat. */
  conversationId: string | null;
  announcer: ComposerProps['announcer'];
  mentionables: ComposerProps['mentionables'];
}

/** The composer of Team Chat or of a direct conversation: queues `chat.send(Files)` or `dm.send(Files)`. */
export function MessageComposer({ conversationId, announcer, mentionables }: MessageComposerProps) {
  const mutate = useMutate();
  const settings = useMemo(() => settingsOf(conversationId), [conversationId]);
  const handleSend = useCallback(
    async ({ text, files }: { text: string; files: File[] }) => {
      const id = uuidv7();
      const queued = files.length === 0 ? null : toQueuedFiles(files);
      if (conversationId === null) {
        await (queued ? mutate('chat.sendFiles', { id, text, files: queued }) : mutate('chat.send', { id, text }));
      } else if (queued) {
        await mutate('dm.sendFiles', { id, conversationId, text, files: queued });
      } else {
        await mutate('dm.send', { id, conversationId, text });
      }
    },
    [mutate, conversationId],
  );
  return <Composer {...settings} announcer={announcer} mentionables={mentionables} onSend={handleSend} />;
}
