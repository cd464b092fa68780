import { X } from 'lucide-react';
import type { PresenceStatus } from '@office/sync-protocol';
import type { LocalUser } from '../../data/db';
import { UserAvatar } from '../../components/user-avatar';
import { RoleBadge } from '../../components/role-badge';
import { orderMembers, presenceLabel } from './chat-format';
import styles from './chat.module.css';
import pageStyles from '../../components/messages/message-page.module.css';

interface MembersPanelProps {
  id: string;
  users: readonly LocalUser[];
  /** Each person's presence as this device shows it (data/people.ts). */
  presence: (person: LocalUser) => PresenceStatus;
  selfId: string;
  typingIds: ReadonlySet<string>;
  onClose: () => void;
}

/** "Team Members (n)": presence, role badge and who is typing. */
export function MembersPanel({ id, users, presence, selfId, typingIds, onClose }: MembersPanelProps) {
  const members = orderMembers(
    users.map((user) => ({ ...user, status: presence(user) })),
    selfId,
  );
  return (
    <aside id={id} className={`${pageStyles.sidePanel} ${styles.members}`} aria-labelledby={`${id}-title`}>
      <div className={pageStyles.sidePanelHeader}>
        <h2 id={`${id}-title`} className={pageStyles.sidePanelTitle}>
          Team Members ({users.length})
        </h2>
        <button type="button" className={styles.membersClose} aria-label="Close team members" onClick={onClose}>
          <X size={18} aria-hidden="true" />
        </button>
      </div>
      {/* A long team scrolls here: focusable, so the keyboard can scroll it too. */}
      <ul className={styles.memberList} tabIndex={0} aria-labelledby={`${id}-title`}>
        {members.map((member) => {
          const isSelf = member.id === selfId;
          const typing = !isSelf && typingIds.has(member.id);
          return (
            <li key={member.id} className={styles.member}>
              <span className={styles.memberAvatar}>
                <UserAvatar src={member.avatar} name={member.name} size={36} />
                <span
                  className={`${styles.presenceDot} ${styles[`presence-${member.status}`] ?? ''}`}
                  aria-hidden="true"
                />
              </span>
              <span className={styles.memberText}>
                <span className={styles.memberName}>
                  <span className={styles.memberNameText}>{member.name}</span>
                  {isSelf && <span className={styles.you}>(You)</span>}
                </span>
                <span className={styles.memberStatus}>
                  <span data-presence={member.status}>{presenceLabel(member.status)}</span>
                  {typing && <span className={styles.memberTyping}>typing...</span>}
                  <RoleBadge role={member.role} className={styles.roleBadge} />
                </span>
              </span>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
