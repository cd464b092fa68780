import { useState, type FormEvent } from 'react';
import { Eye, EyeOff, KeyRound } from 'lucide-react';
import { accountTexts, limits } from '@office/sync-protocol';
import { updatePasswordRequest } from '../../api/auth-api';
import { startRememberingPassword } from '../../app/auth/device-accounts';
import { useAuth } from '../../app/auth/use-auth';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { TextField } from '../../components/text-field';
import type { Flash } from '../../components/use-flash';
import { useOnline } from '../../data/hooks';
import {
  emptyPasswordForm,
  passwordFailureMessage,
  profileTexts,
  validatePasswordForm,
  type PasswordForm,
} from './profile-forms';
import styles from './profile-settings.module.css';

interface PasswordSectionProps {
  onFlash: (flash: Flash) => void;
}

/**
 * The password change: closed (a note) or open (the form). Online only, never queued: the server ends
 * every other session of the user; this one goes on with its token.
 */
export function PasswordSection({ onFlash }: PasswordSectionProps) {
  const online = useOnline();
  const { user, token } = useAuth();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<PasswordForm>(emptyPasswordForm);
  const [visible, setVisible] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const setField = (field: keyof PasswordForm) => (value: string) =>
    setForm((current) => ({ ...current, [field]: value }));

  const close = () => {
    setForm(emptyPasswordForm);
    setVisible(false);
    setError(null);
    setOpen(false);
  };

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const problem = validatePasswordForm(form);
    if (problem) {
      setError(problem);
      return;
    }
    if (!online) {
      setError(`${profileTexts.passwordFailed}. ${accountTexts.passwordNeedsNetwork}`);
      return;
    }
    setError(null);
    setBusy(true);
    // The new password opens this device offline from now on, the old one no more (derived beside the request).
    const keepPassword = startRememberingPassword(form.newPassword);
    try {
      const answer = await updatePasswordRequest(form.currentPassword, form.newPassword);
      if (!answer.success) {
        setError(answer.message.trim() || profileTexts.passwordFailed);
        return;
      }
      if (user && token)
        await keepPassword(user, token).catch((failure: unknown) =>
          console.warn('Could not remember the new password for offline use', failure),
        );
      close();
      onFlash({ kind: 'success', text: accountTexts.passwordUpdated });
    } catch (failure) {
      setError(passwordFailureMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const inputType = visible ? 'text' : 'password';

  return (
    <section className={styles.card} aria-labelledby="password-title">
      <div className={styles.cardHeader}>
        <h2 id="password-title" className={styles.cardTitle}>
          Password
        </h2>
        {open ? (
          <Button
            variant="secondary"
            size="small"
            aria-pressed={visible}
            aria-label={visible ? 'Hide passwords' : 'Show passwords'}
            onClick={() => setVisible((shown) => !shown)}
          >
            {visible ? <EyeOff size={16} aria-hidden="true" /> : <Eye size={16} aria-hidden="true" />}
            {visible ? 'Hide' : 'Show'}
          </Button>
        ) : (
          <Button variant="secondary" size="small" onClick={() => setOpen(true)}>
            <KeyRound size={16} aria-hidden="true" />
            Change Password
          </Button>
        )}
      </div>
      {open ? (
        <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
          {error ? <FormAlert message={error} /> : null}
          <TextField
            label="Current Password"
            type={inputType}
            value={form.currentPassword}
            onValueChange={setField('currentPassword')}
            placeholder="Enter current password"
            autoComplete="current-password"
            maxLength={limits.passwordMaxLength}
          />
          <TextField
            label="New Password"
            type={inputType}
            value={form.newPassword}
            onValueChange={setField('newPassword')}
            placeholder="Enter new password"
            autoComplete="new-password"
            maxLength={limits.passwordMaxLength}
          />
          <TextField
            label="Confirm New Password"
            type={inputType}
            value={form.confirmPassword}
            onValueChange={setField('confirmPassword')}
            placeholder="Confirm new password"
            autoComplete="new-password"
            maxLength={limits.passwordMaxLength}
          />
          <div className={styles.formActions}>
            <Button variant="secondary" onClick={close} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" busy={busy}>
              {busy ? 'Updating...' : 'Update Password'}
            </Button>
          </div>
        </form>
      ) : (
        <p className={styles.note}>{profileTexts.passwordNote}</p>
      )}
    </section>
  );
}
