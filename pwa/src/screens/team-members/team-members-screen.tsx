import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Building2, Mail, MessageCircle, RefreshCw, Users } from 'lucide-react';
import type { LocalUser } from '../../data/db';
import { useHasSynced, useSyncState, useUsers } from '../../data/hooks';
import { useStartConversation } from '../../data/direct-hooks';
import { useWorkspace } from '../../sync/sync-context';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { FormAlert } from '../../components/form-alert';
import { PageHeader } from '../../components/page-header';
import { RoleBadge } from '../../components/role-badge';
import { SearchField } from '../../components/search-field';
import { UserAvatar } from '../../components/user-avatar';
import { emptyMembersText, filterMembers, memberCountText, type RoleFilter } from './member-filters';
import styles from './team-members.module.css';
import { failureTexts } from '../../app/failure-messages';

const roleOptions: { value: RoleFilter; label: string }[] = [
  { value: 'all', label: 'All Roles' },
  { value: 'manager', label: 'Manager' },
  { value: 'employee', label: 'Employee' },
  { value: 'admin', label: 'Admin' },
];

/** Team Members (/team-members): the directory, from this device's copy, with "Message" for each colleague. */
export function TeamMembersScreen() {
  const users = useUsers();
  const hasSynced = useHasSynced();
  const { phase } = useSyncState();
  const { ctx, engine } = useWorkspace();
  const startConversation = useStartConversation();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const [role, setRole] = useState<RoleFilter>('all');
  const [error, setError] = useState<string | null>(null);

  const shown = useMemo(() => filterMembers(users ?? [], search, role), [users, search, role]);
  // Nothing on this device yet: the first sync is still running, or it failed.
  const waitingForFirstSync = users !== undefined && users.length === 0 && hasSynced === false;
  const loadFailed = waitingForFirstSync && (phase === 'offline' || phase === 'retrying');

  const message = async (member: LocalUser) => {
    if (!member.id) {
      setError(failureTexts.invalidMember);
      return;
    }
    setError(null);
    try {
      const conversationId = await startConversation(member.id);
      await navigate('/direct-messages', {
        state: { activeConversationId: conversationId, recipientName: member.name },
      });
    } catch (cause) {
      setError(`${failureTexts.startConversationFailed}: ${cause instanceof Error ? cause.message : String(cause)}`);
    }
  };

  return (
    <div className={styles.page}>
      <PageHeader title="Team Members" subtitle={users ? memberCountText(users.length) : undefined} />
      <div className={styles.toolbar}>
        <SearchField placeholder="Search by name or email..." value={search} onValueChange={setSearch} />
        <select
          className={styles.select}
          aria-label="Filter by role"
          value={role}
          onChange={(event) => setRole(event.target.value as RoleFilter)}
        >
          {roleOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {error && <FormAlert message={error} />}

      {loadFailed ? (
        <div className={styles.state} role="alert">
          <p className={styles.stateText}>{failureTexts.teamMembersFailed}</p>
          <Button variant="secondary" size="small" onClick={engine.kick}>
            <RefreshCw size={16} aria-hidden="true" />
            Try Again
          </Button>
        </div>
      ) : users === undefined || waitingForFirstSync ? (
        <p className={styles.state} role="status">
          Loading team members...
        </p>
      ) : shown.length === 0 ? (
        <EmptyState
          icon={<Users size={28} />}
          title="No team members found"
          text={emptyMembersText(users.length)}
          classNames={{ root: styles.state, icon: styles.stateIcon, title: styles.stateTitle, text: styles.stateText }}
        />
      ) : (
        <ul className={styles.grid} aria-label="Team members">
          {shown.map((member) => (
            <li key={member.id} className={styles.card}>
              <RoleBadge role={member.role} className={styles.role} />
              <UserAvatar src={member.avatar} name={member.name} size={64} />
              <h2 className={styles.name}>{member.name}</h2>
              <p className={styles.detail}>
                <Mail size={14} aria-hidden="true" />
                <span className={styles.detailText}>{member.email}</span>
              </p>
              <p className={styles.detail}>
                <Building2 size={14} aria-hidden="true" />
                <span className={styles.detailText}>{member.department || 'No department'}</span>
              </p>
              {member.id === ctx.userId ? (
                <p className={styles.you}>This is you</p>
              ) : (
                <Button size="small" block aria-label={`Message ${member.name}`} onClick={() => void message(member)}>
                  <MessageCircle size={16} aria-hidden="true" />
                  Message
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
