import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Lock, Mail, UserRound } from 'lucide-react';
import { AuthLayout } from '../../components/auth-layout';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { PasswordField, TextField } from '../../components/text-field';
import { authMessages } from '../../app/auth/auth-messages';
import { useAuth } from '../../app/auth/use-auth';
import styles from '../../components/auth-form.module.css';

/** /signup: full name, email and password (spec section 2). */
export function SignupScreen() {
  const { register } = useAuth();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (name.trim() === '' || email.trim() === '' || password === '') {
      setError(authMessages.emptyFields);
      return;
    }
    setError(null);
    setSubmitting(true);
    const result = await register(name.trim(), email.trim(), password);
    if (result.ok) {
      void navigate('/dashboard', { replace: true });
      return;
    }
    setSubmitting(false);
    setError(result.message);
  };

  return (
    <AuthLayout
      title="Create your account"
      subtitle="Join your team's workspace in a minute"
      footer={
        <>
          Already have an account? <Link to="/login">Sign in</Link>
        </>
      }
    >
      <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
        {error !== null && <FormAlert message={error} />}
        <TextField
          label="Full name"
          name="name"
          autoComplete="name"
          placeholder="Jane Cooper"
          icon={<UserRound size={18} />}
          value={name}
          onValueChange={setName}
        />
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
          autoComplete="new-password"
          placeholder="At least 6 characters"
          icon={<Lock size={18} />}
          value={password}
          onValueChange={setPassword}
        />
        <Button type="submit" block busy={submitting}>
          {submitting ? 'Creating account...' : 'Create account'}
        </Button>
      </form>
    </AuthLayout>
  );
}
