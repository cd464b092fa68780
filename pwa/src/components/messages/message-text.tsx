import type { ReactNode } from 'react';
import type { MentionMatch } from '@office/sync-protocol';
import { Highlight } from './highlight';
import styles from './message-item.module.css';

interface MessageTextProps {
  text: string;
  /** Reads the mentions of the people who can be mentioned here (the team, or a conversation's participants). */
  findMentions: (text: string) => MentionMatch[];
  /** The signed-in person: a mention of them stands out more. */
  selfId: string;
  /** Words the message search marks. */
  search?: string;
}

/** A message's text with each @mention marked, and the search's words marked inside and around them. */
export function MessageText({ text, findMentions, selfId, search = '' }: MessageTextProps) {
  const mentions = findMentions(text);
  if (mentions.length === 0) return <Highlight text={text} search={search} />;
  const parts: ReactNode[] = [];
  let from = 0;
  for (const mention of mentions) {
    if (mention.start > from)
      parts.push(<Highlight key={from} text={text.slice(from, mention.start)} search={search} />);
    const ofSelf = mention.userIds.includes(selfId);
    parts.push(
      <mark
        key={mention.start}
        className={`${styles.mention} ${ofSelf ? styles.mentionOfSelf : ''}`}
        data-mention={ofSelf ? 'self' : ''}
      >
        <Highlight text={text.slice(mention.start, mention.end)} search={search} />
      </mark>,
    );
    from = mention.end;
  }
  if (from < text.length) parts.push(<Highlight key={from} text={text.slice(from)} search={search} />);
  return <>{parts}</>;
}
