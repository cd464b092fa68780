import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Lock, Mail } from 'lucide-react';
import { AuthLayout } from '../../components/auth-layout';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { PasswordField, TextField } from '../../components/text-field';
import { authMessages } from '../../app/auth/auth-messages';
import { GoogleSignInButton } from '../../app/auth/google-sign-in-button';
import { useAuth } from '../../app/auth/use-auth';
import styles from '../../components/auth-form.module.css';

/** /login: email and password, or Google (spec section 2). */
export function LoginScreen() {
  const { login, googleLogin } = useAuth();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
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
      </form>
      <GoogleSignInButton onCredential={(credential) => void handleGoogleCredential(credential)} />
    </AuthLayout>
  );
}
