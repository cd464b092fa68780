import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Lock, Mail } from 'lucide-react';
import { accessTexts, errorCatalogue } from '@office/sync-protocol';
import { AuthLayout } from '../../components/auth-layout';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { FormNotice } from '../../components/form-notice';
import { UserAvatar } from '../../components/user-avatar';
import { PasswordField, TextField } from '../../components/text-field';
import { authMessages, continueOfflineLabel } from '../../app/auth/auth-messages';
import { lastGoogleAccount, type DeviceAccount } from '../../app/auth/device-accounts';
import { writesAwaitingSignIn } from '../../app/auth/ended-session';
import { passwordWasResetFor } from '../../app/auth/password-change';
import { useOnline } from '../../data/hooks';
import { GoogleSignInButton } from '../../app/auth/google-sign-in-button';
import { useAuth } from '../../app/auth/use-auth';
import styles from '../../components/auth-form.module.css';

/** /login: email and password, or Google (spec section 2). */
export function LoginScreen() {
  const { login, googleLogin, continueOffline } = useAuth();
  const navigate = useNavigate();
  const online = useOnline();
  const googleAccount = useLastGoogleAccount();
  const awaitingWrites = useWritesAwaitingSignIn();
  // Read once: the last session here ended because a manager or admin reset this person's password.
  const [resetFor] = useState(passwordWasResetFor);
  const [email, setEmail] = useState(resetFor ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === '' || password === '') {
      setError(authMessages.emptyFields);
      return;
    }
    setError(null);
    setSubmitting(true);
    const result = await login(email.trim(), password);
    if (result.ok) {
      void navigate('/dashboard', { replace: true });
      return;
    }
    setSubmitting(false);
    setError(result.message);
  };

  const handleGoogleCredential = async (credential: string | null): Promise<void> => {
    if (credential === null) {
      setError(authMessages.google.exception);
      return;
    }
    setError(null);
    setSubmitting(true);
    const result = await googleLogin(credential);
    if (result.ok) {
      void navigate('/dashboard', { replace: true });
      return;
    }
    setSubmitting(false);
    setError(result.message);
  };

  const handleContinueOffline = async (account: DeviceAccount): Promise<void> => {
    setError(null);
    setSubmitting(true);
    const result = await continueOffline(account.userId);
    if (result.ok) {
      void navigate('/dashboard', { replace: true });
      return;
    }
    setSubmitting(false);
    setError(result.message);
  };

  return (
    <AuthLayout
      title="Welcome back"
      subtitle="Sign in to continue to your workspace"
      footer={
        <>
          Don&apos;t have an account? <Link to="/signup">Create one!</Link>
        </>
      }
    >
      <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
        {!online && <FormNotice>{authMessages.offlineNote}</FormNotice>}
        {awaitingWrites > 0 && <FormNotice>{authMessages.signInToSync}</FormNotice>}
        {resetFor !== null && <FormNotice>{errorCatalogue.password_reset.message}</FormNotice>}
        {error !== null && <FormAlert message={error} />}
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="email"
          inputMode="email"
          placeholder="you@company.com"
          icon={<Mail size={18} />}
          value={email}
          onValueChange={setEmail}
        />
        <PasswordField
          label="Password"
          name="password"
          autoComplete="current-password"
          placeholder="Enter your password"
          icon={<Lock size={18} />}
          value={password}
          onValueChange={setPassword}
        />
        <Button type="submit" block busy={submitting}>
          {submitting ? 'Signing in...' : 'Sign in'}
        </Button>
        {/* No mail is sent by this product: a manager or admin resets a password to a one-time code. */}
        <p className={styles.hint}>{accessTexts.forgotPassword}</p>
      </form>
      {!online && googleAccount ? (
        <Button
          variant="secondary"
          block
          disabled={submitting}
          onClick={() => void handleContinueOffline(googleAccount)}
        >
          <span aria-hidden="true">
            <UserAvatar src={googleAccount.user.avatar} name={googleAccount.user.name} size={24} />
          </span>
          {continueOfflineLabel(googleAccount.user.name)}
        </Button>
      ) : (
        <GoogleSignInButton onCredential={(credential) => void handleGoogleCredential(credential)} />
      )}
    </AuthLayout>
  );
}

/** The Google account that may continue offline on this device, once read. */
function useLastGoogleAccount(): DeviceAccount | undefined {
  const [account, setAccount] = useState<DeviceAccount>();
  useEffect(() => {
    let active = true;
    lastGoogleAccount()
      .then((found) => {
        if (active) setAccount(found);
      })
      .catch((error: unknown) => console.warn('Could not read this device’s accounts', error));
    return () => {
      active = false;
    };
  }, []);
  return account;
}

/** Writes of a person whose session the server ended, waiting for them to sign in again. */
function useWritesAwaitingSignIn(): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    let active = true;
    writesAwaitingSignIn()
      .then((found) => {
        if (active) setCount(found);
      })
      .catch((error: unknown) => console.warn('Could not read the writes waiting for sign-in', error));
    return () => {
      active = false;
    };
  }, []);
  return count;
}
