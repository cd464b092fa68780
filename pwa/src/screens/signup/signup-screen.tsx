import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Lock, Mail, UserRound } from 'lucide-react';
import { accessTexts, errorCatalogue, invitationParam, type SignupOptionsResponse } from '@office/sync-protocol';
import { signupOptionsRequest } from '../../api/access-api';
import { AuthLayout } from '../../components/auth-layout';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { FormNotice } from '../../components/form-notice';
import { PasswordField, TextField } from '../../components/text-field';
import { authMessages } from '../../app/auth/auth-messages';
import { useAuth } from '../../app/auth/use-auth';
import styles from '../../components/auth-form.module.css';

/**
 * /signup: full name, email and password (spec section 2). Who may join is the workspace's sign-up policy; a link
 * from an invitation (?invitation=...) carries it, and says whom it is for when it names an email.
 */
export function SignupScreen() {
  const { register } = useAuth();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const invitation = searchParams.get(invitationParam)?.trim() || null;
  const options = useSignupOptions(invitation);
  const invited = options?.invitation ?? null;
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  // An invitation for one email: that is the address to sign up with.
  const invitedEmail = invited?.email ?? null;
  const shownEmail = invitedEmail ?? email;

  // Invited people only, and this visitor has no invitation that admits: nothing to fill in.
  const closed = options?.policy === 'invite' && invited === null;

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (name.trim() === '' || shownEmail.trim() === '' || password === '') {
      setError(authMessages.emptyFields);
      return;
    }
    setError(null);
    setSubmitting(true);
    // An invitation that no longer admits is left out: the policy may still let this person in.
    const sent = options && invited === null ? null : invitation;
    const result = await register(name.trim(), shownEmail.trim(), password, sent);
    if (result.ok) {
      void navigate('/dashboard', { replace: true });
      return;
    }
    setSubmitting(false);
    setError(result.message);
  };

  return (
    <AuthLayout
      title={invited ? 'Join your team' : 'Create your account'}
      subtitle={invited ? "You're invited to your team's workspace" : "Join your team's workspace in a minute"}
      footer={
        <>
          Already have an account? <Link to="/login">Sign in</Link>
        </>
      }
    >
      {closed ? (
        <div className={styles.form}>
          {options.invitationProblem && <FormAlert message={options.invitationProblem.message} />}
          <FormNotice>{errorCatalogue.signup_invitation_required.message}</FormNotice>
        </div>
      ) : (
        <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
          {invited && (
            <FormNotice>
              You&apos;re invited to join this workspace.
              {invitedEmail !== null && ` ${accessTexts.invitationFor(invitedEmail)}`}
            </FormNotice>
          )}
          {options?.invitationProblem && <FormAlert message={options.invitationProblem.message} />}
          {options?.policy === 'domains' && !invited && (
            <FormNotice>{accessTexts.domainsOnly(options.domains)}</FormNotice>
          )}
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
            value={shownEmail}
            onValueChange={setEmail}
            readOnly={invitedEmail !== null}
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
      )}
    </AuthLayout>
  );
}

/**
 * Who may sign up and what the invitation says, once the server has answered; undefined before that or when it
 * could not be asked (offline): the form then stays, and the server decides on submit.
 */
function useSignupOptions(invitation: string | null): SignupOptionsResponse | undefined {
  const [options, setOptions] = useState<SignupOptionsResponse>();
  useEffect(() => {
    let active = true;
    signupOptionsRequest(invitation)
      .then((answer) => {
        if (active) setOptions(answer);
      })
      .catch((error: unknown) => console.warn('Could not read who may sign up', error));
    return () => {
      active = false;
    };
  }, [invitation]);
  return options;
}
