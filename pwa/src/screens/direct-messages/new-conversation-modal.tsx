import { useEffect, useState } from 'react';
import { RefreshCw, UserRoundSearch } from 'lucide-react';
import { directTexts } from '@office/sync-protocol';
import type { LocalUser } from '../../data/db';
import { useStartConversation } from '../../data/direct-hooks';
import { useSyncState } from '../../data/hooks';
import { whoIsWho } from '../../data/people';
import { FormAlert } from '../../components/form-alert';
import { Modal } from '../../components/modal';
import { RoleBadge } from '../../components/role-badge';
import { SearchField } from '../../components/search-field';
import { UserAvatar } from '../../components/user-avatar';
import { useWorkspace } from '../../sync/sync-context';
import { conversationCandidates, userRoleText } from './direct-format';
import styles from './direct-messages.module.css';
import { failureTexts } from '../../app/failure-messages';

/** The refresh spinner turns at least this long, so a quick sync still reads as done. */
const minimumSpinMs = 600;

interface NewConversationModalProps {
  /** The directory on this device (undefined while it is read). */
  users: readonly LocalUser[] | undefined;
  selfId: string;
  onClose: () => void;
  /** The conversation with the chosen user exists (on this device at least): open it. */
  onStarted: (conversationId: string) => void;
}

/** "Start New Conversation": everyone but the viewer, searchable; choosing one starts (or reopens) the conversation. */
export function NewConversationModal({ users, selfId, onClose, onStarted }: NewConversationModalProps) {
  const { engine } = useWorkspace();
  const { phase } = useSyncState();
  const startConversation = useStartConversation();
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [startingId, setStartingId] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);

  // The directory arrives through sync: refresh asks for a sync now and spins until it is over.
  useEffect(() => {
    if (!refreshing || phase === 'syncing') return undefined;
    const timer = window.setTimeout(() => setRefreshing(false), minimumSpinMs);
    return () => window.clearTimeout(timer);
  }, [refreshing, phase]);
  const refresh = () => {
    setRefreshing(true);
    engine.kick();
  };

  const candidates = conversationCandidates(users ?? [], selfId, search);
  const nobody = users !== undefined && users.every((user) => user.id === selfId);

  const choose = async (user: Pick<LocalUser, 'id' | 'name'>) => {
    setError(null);
    if (!user.id) {
      setError(directTexts.invalidUser);
      return;
    }
    setStartingId(user.id);
    try {
      onStarted(await startConversation(user.id));
    } catch (startError) {
      console.error('Starting the conversation failed', startError);
      // Spec section 8: "Failed to start conversation: " plus the error.
      setError(
        `${failureTexts.startConversationFailed}: ${startError instanceof Error ? startError.message : String(startError)}`,
      );
      setStartingId(null);
    }
  };

  return (
    <Modal title="Start New Conversation" onClose={onClose}>
      <div className={styles.pickerToolbar}>
        <SearchField placeholder="Search users..." value={search} onValueChange={setSearch} />
        <button
          type="button"
          className={styles.refreshButton}
          aria-label="Refresh users"
          title="Refresh users"
          aria-busy={refreshing}
          onClick={refresh}
        >
          <RefreshCw size={18} aria-hidden="true" className={refreshing ? styles.spinning : undefined} />
        </button>
      </div>
      {error && <FormAlert message={error} />}
      {users === undefined ? (
        <p className={styles.pickerLoading} role="status">
          Loading users...
        </p>
      ) : candidates.length === 0 ? (
        <div className={styles.pickerEmpty}>
          <UserRoundSearch size={28} aria-hidden="true" />
          <p className={styles.pickerEmptyTitle}>No users found</p>
          <p className={styles.pickerEmptyText}>
            {nobody ? 'No available users loaded' : 'Try adjusting your search terms'}
          </p>
        </div>
      ) : (
        <ul className={styles.userList} aria-label="Users">
          {candidates.map((user) => (
            <li key={user.id}>
              <button
                type="button"
                className={styles.userOption}
                aria-label={`Start conversation with ${[user.name, whoIsWho(user)].filter(Boolean).join(', ')}`}
                disabled={startingId !== null}
                onClick={() => void choose(user)}
              >
                <UserAvatar src={user.avatar} name={user.name} size={40} />
                <span className={styles.userText}>
                  <span className={styles.userName}>{user.name}</span>
                  {whoIsWho(user) && <span className={styles.userWho}>{whoIsWho(user)}</span>}
                  {user.role ? (
                    <RoleBadge role={user.role} className={styles.userRole} />
                  ) : (
                    <span className={styles.userRoleText}>{userRoleText(user.role)}</span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
