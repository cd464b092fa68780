import { useState, type FormEvent } from 'react';
import { Pencil } from 'lucide-react';
import type { User } from '@office/sync-protocol';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { TextField } from '../../components/text-field';
import type { Flash } from '../../components/use-flash';
import { useMutate } from '../../data/hooks';
import type { LocalUser } from '../../data/db';
import { LocalWriteError } from '../../sync/mutate';
import { PendingMark } from '../../sync/pending-mark';
import { whenSettled } from '../../sync/settled';
import { useWorkspace } from '../../sync/sync-context';
import { profileTexts } from './profile-forms';
import styles from './profile-settings.module.css';

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

interface BasicInformationProps {
  user: LocalUser | User;
  onFlash: (flash: Flash) => void;
}

/**
 * Name and email, read or edited; a save is a local write that syncs when it can. "Profile updated
 * successfully!" waits for the server's acceptance; offline the save says where it is instead.
 */
export function BasicInformation({ user, onFlash }: BasicInformationProps) {
  const mutate = useMutate();
  const { db } = useWorkspace();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [error, setError] = useState<string | null>(null);
  const pending = 'pending' in user && user.pending === 1;

  const startEditing = () => {
    setName(user.name);
    setEmail(user.email);
    setError(null);
    setEditing(true);
  };

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === user.name && email.trim().toLowerCase() === user.email) {
      setEditing(false);
      return;
    }
    if (!name.trim() || !email.trim()) {
      setError('Name and email are required');
      return;
    }
    let mutationId: number;
    try {
      mutationId = await mutate('user.updateDetails', { name, email });
    } catch (failure) {
      if (failure instanceof LocalWriteError && failure.code === 'invalid_input') setError(failure.message);
      else
        onFlash({
          kind: 'error',
          text:
            failure instanceof LocalWriteError
              ? `${profileTexts.profileFailed}. ${failure.message}`
              : profileTexts.profileFailed,
        });
      return;
    }
    setEditing(false);
    if (!navigator.onLine) onFlash({ kind: 'success', text: profileTexts.profileSavedOffline });
    // The refusal's reason, Retry and Discard are in the app-wide alert; the flash names the failure.
    const settled = await whenSettled(db, mutationId);
    onFlash(
      settled.status === 'accepted'
        ? { kind: 'success', text: profileTexts.profileUpdated }
        : { kind: 'error', text: profileTexts.profileFailed },
    );
  };

  return (
    <section className={styles.card} aria-labelledby="basic-information-title">
      <div className={styles.cardHeader}>
        <h2 id="basic-information-title" className={styles.cardTitle}>
          Basic Information
        </h2>
        {!editing && (
          <Button variant="secondary" size="small" onClick={startEditing}>
            <Pencil size={16} aria-hidden="true" />
            Edit
          </Button>
        )}
      </div>
      {editing ? (
        <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
          {error ? <FormAlert message={error} /> : null}
          <TextField label="Full Name" value={name} onValueChange={setName} autoComplete="name" maxLength={100} />
          <TextField label="Email" type="email" value={email} onValueChange={setEmail} autoComplete="email" />
          <div className={styles.readOnlyField}>
            <span className={styles.fieldLabel}>Role</span>
            <span className={styles.fieldValue}>{capitalise(user.role)}</span>
          </div>
          <div className={styles.formActions}>
            <Button variant="secondary" onClick={() => setEditing(false)}>
              Cancel
            </Button>
            <Button type="submit">Save Changes</Button>
          </div>
        </form>
      ) : (
        <dl className={styles.details}>
          <div className={styles.detail}>
            <dt className={styles.fieldLabel}>Full Name</dt>
            <dd className={styles.fieldValue}>
              {user.name}
              {pending ? <PendingMark /> : null}
            </dd>
          </div>
          <div className={styles.detail}>
            <dt className={styles.fieldLabel}>Email</dt>
            <dd className={styles.fieldValue}>
              {user.email}
              {pending ? <PendingMark /> : null}
            </dd>
          </div>
          <div className={styles.detail}>
            <dt className={styles.fieldLabel}>Role</dt>
            <dd className={styles.fieldValue}>{capitalise(user.role)}</dd>
          </div>
        </dl>
      )}
    </section>
  );
}
