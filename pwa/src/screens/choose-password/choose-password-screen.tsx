import { useState, type FormEvent } from 'react';
import { KeyRound, Lock } from 'lucide-react';
import { accessTexts, accountTexts, limits } from '@office/sync-protocol';
import { logoutRequest } from '../../api/auth-api';
import { AuthLayout } from '../../components/auth-layout';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { FormNotice } from '../../components/form-notice';
import { PasswordField } from '../../components/text-field';
import { useAuth } from '../../app/auth/use-auth';
import { useOnline } from '../../data/hooks';
import styles from '../../components/auth-form.module.css';

/** Why the new password cannot be sent yet, or null. */
export function choosePasswordProblem(password: string, confirmation: string): string | null {
  if (password === '' || confirmation === '') return accountTexts.passwordFieldsRequired;
  if (password.length < limits.passwordMinLength) return accountTexts.passwordTooShort;
  if (password !== confirmation) return accountTexts.passwordsDiffer;
  return null;
}

/**
 * "Choose a new password": the only screen of someone who signed in with the one-time code of a password reset. The
 * server refuses them everything else until it has the new password (online only: nothing is queued).
 */
export function ChoosePasswordScreen() {
  const { passwordChangeFor: person, choosePassword, logout } = useAuth();
  const online = useOnline();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    const problem = choosePasswordProblem(password, confirmation);
    if (problem !== null) {
      setError(problem);
      return;
    }
    if (!online) {
      setError(accessTexts.choosePasswordNeedsNetwork);
      return;
    }
    setError(null);
    setBusy(true);
    const result = await choosePassword(password);
    // On success the workspace opens in place of this screen.
    if (!result.ok) {
      setBusy(false);
      setError(result.message);
    }
  };

  const handleSignOut = (): void => {
    logoutRequest().catch((failure: unknown) => console.warn('Could not end the session on the server', failure));
    logout();
  };

  return (
    <AuthLayout
      title="Choose a new password"
      subtitle="Your password was reset. Choose a new one to continue to your workspace."
      footer={
        <>
          Not you?{' '}
          <button type="button" className={styles.linkButton} onClick={handleSignOut}>
            Sign out
          </button>
        </>
      }
    >
      <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
        {person !== null && (
          <FormNotice>
            Signed in as {person.name} ({person.email}) with a one-time code. It works only once: choose your new
            password now.
          </FormNotice>
        )}
        {!online && <FormNotice>{accessTexts.choosePasswordNeedsNetwork}</FormNotice>}
        {error !== null && <FormAlert message={error} />}
        {/* For password managers: whose new password this is. */}
        <input type="email" name="username" autoComplete="username" value={person?.email ?? ''} readOnly hidden />
        <PasswordField
          label="New password"
          name="new-password"
          autoComplete="new-password"
          placeholder={`At least ${limits.passwordMinLength} characters`}
          icon={<Lock size={18} />}
          maxLength={limits.passwordMaxLength}
          value={password}
          onValueChange={setPassword}
        />
        <PasswordField
          label="Confirm new password"
          name="confirm-password"
          autoComplete="new-password"
          placeholder="Type it again"
          icon={<KeyRound size={18} />}
          maxLength={limits.passwordMaxLength}
          value={confirmation}
          onValueChange={setConfirmation}
        />
        <Button type="submit" block busy={busy}>
          {busy ? 'Saving...' : 'Set new password'}
        </Button>
      </form>
    </AuthLayout>
  );
}
