import { useId, useMemo, useState } from 'react';
import { KeyRound } from 'lucide-react';
import { canResetPassword, type Actor } from '@office/sync-protocol';
import { Button } from '../../components/button';
import { useUsers } from '../../data/hooks';
import { ResetPasswordDialog } from './reset-password-dialog';
import styles from './workspace-settings.module.css';

/**
 * "Forgotten passwords": there is no mail delivery, so a manager or admin resets a password to a one-time code and
 * gives it to the person. Lists whom this person may reset (managers: employees; admins: anyone but themselves).
 */
export function PasswordResetSection({ actor, online }: { actor: Actor; online: boolean }) {
  const titleId = useId();
  const personId = useId();
  const users = useUsers();
  const people = useMemo(() => (users ?? []).filter((user) => canResetPassword(actor, user)), [users, actor]);
  const [chosen, setChosen] = useState('');
  const [resetting, setResetting] = useState<{ id: string; name: string } | null>(null);
  const person = people.find((user) => user.id === chosen);

  return (
    <section className={styles.card} aria-labelledby={titleId}>
      <div className={styles.cardHeader}>
        <h2 id={titleId} className={styles.cardTitle}>
          Forgotten passwords
        </h2>
      </div>
      <p className={styles.muted}>
        This workspace sends no email. When someone forgets their password, reset it here and give them the one-time
        code; they choose a new password when they sign in with it.
        {actor.role === 'manager' ? ' Managers reset the passwords of employees.' : ''}
      </p>
      <div className={styles.pickRow}>
        <div className={styles.field}>
          <label className={styles.fieldLabel} htmlFor={personId}>
            Person
          </label>
          <select
            id={personId}
            className={styles.select}
            value={person ? chosen : ''}
            onChange={(event) => setChosen(event.target.value)}
          >
            <option value="">Choose someone...</option>
            {people.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name} ({user.email})
              </option>
            ))}
          </select>
        </div>
        <Button
          variant="secondary"
          disabled={!person || !online}
          onClick={() => person && setResetting({ id: person.id, name: person.name })}
        >
          <KeyRound size={16} aria-hidden="true" />
          Reset password
        </Button>
      </div>
      {resetting !== null && <ResetPasswordDialog person={resetting} onClose={() => setResetting(null)} />}
    </section>
  );
}
