import { useId, useState, type FormEvent } from 'react';
import {
  accessTexts,
  parseDomainList,
  signupSettingsSchema,
  type SignupPolicy,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import { setSignupPolicyRequest } from '../../api/access-api';
import { serverMessageOr } from '../../api/http';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import type { Flash } from '../../components/use-flash';
import { formatTimestamp } from '../tasks/task-format';
import styles from './workspace-settings.module.css';

/** The three answers to "who may join", as the page words them. */
export const signupPolicyChoices: readonly { value: SignupPolicy; label: string; hint: string }[] = [
  { value: 'open', label: 'Anyone with the link', hint: 'Anyone who can open this app can create an account.' },
  {
    value: 'domains',
    label: 'Only emails at these domains',
    hint: 'People sign up with an email address at one of the domains you list.',
  },
  {
    value: 'invite',
    label: 'Invited people only',
    hint: 'People join through an invitation link from a manager or administrator.',
  },
];

const SAVE_FAILED = 'Could not save the sign-up setting. Please try again.';

interface SignupPolicySectionProps {
  settings: WorkspaceSettingsResponse;
  /** Admins change the setting; managers see it. */
  canChange: boolean;
  online: boolean;
  onSaved: (settings: WorkspaceSettingsResponse) => void;
  onFlash: (flash: Flash) => void;
}

/**
 * "Who may join": the workspace's sign-up policy, saved on the server (never queued). Keyed by the setting's time
 * where it is used, so a save or a reload starts the form again from the server's setting.
 */
export function SignupPolicySection({ settings, canChange, online, onSaved, onFlash }: SignupPolicySectionProps) {
  const titleId = useId();
  const domainsId = useId();
  const domainsHintId = useId();
  const { signup } = settings;
  const [policy, setPolicy] = useState<SignupPolicy>(signup.policy);
  const [domains, setDomains] = useState(signup.domains.join(', '));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const locked = !canChange || !online || busy;
  const changed = policy !== signup.policy || parseDomainList(domains).join(',') !== signup.domains.join(',');

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (locked) return;
    const parsed = signupSettingsSchema.safeParse({ policy, domains: parseDomainList(domains) });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? SAVE_FAILED);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      onSaved(await setSignupPolicyRequest(parsed.data));
      onFlash({ kind: 'success', text: accessTexts.policyChanged });
    } catch (failure) {
      setError(serverMessageOr(failure, SAVE_FAILED));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className={styles.card} aria-labelledby={titleId}>
      <div className={styles.cardHeader}>
        <h2 id={titleId} className={styles.cardTitle}>
          Who may join
        </h2>
        <p className={styles.muted}>
          {signup.changedAt === null
            ? "The server's default (SIGNUP_POLICY)"
            : `Set by ${signup.changedBy?.name ?? 'a former admin'} on ${formatTimestamp(signup.changedAt)}`}
        </p>
      </div>
      <form className={styles.form} onSubmit={(event) => void handleSubmit(event)} noValidate>
        {!canChange && <p className={styles.muted}>{accessTexts.onlyAdminsChangePolicy}</p>}
        {error !== null && <FormAlert message={error} />}
        <fieldset className={styles.choices} disabled={locked}>
          <legend className={styles.legend}>Who may create an account</legend>
          {signupPolicyChoices.map((choice) => (
            <label key={choice.value} className={`${styles.choice} ${policy === choice.value ? styles.chosen : ''}`}>
              <input
                type="radio"
                name="signup-policy"
                value={choice.value}
                checked={policy === choice.value}
                onChange={() => setPolicy(choice.value)}
              />
              <span className={styles.choiceText}>
                <span className={styles.choiceLabel}>{choice.label}</span>
                <span className={styles.choiceHint}>{choice.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {policy === 'domains' && (
          <div className={styles.field}>
            <label className={styles.fieldLabel} htmlFor={domainsId}>
              Domains
            </label>
            <input
              id={domainsId}
              className={styles.input}
              value={domains}
              onChange={(event) => setDomains(event.target.value)}
              placeholder="example.com, example.org"
              aria-describedby={domainsHintId}
              disabled={locked}
              autoComplete="off"
              spellCheck={false}
            />
            <p id={domainsHintId} className={styles.muted}>
              Separate domains with commas. People outside them can still join with an invitation.
            </p>
          </div>
        )}
        {canChange && (
          <div className={styles.actions}>
            <Button type="submit" busy={busy} disabled={!online || !changed}>
              {busy ? 'Saving...' : 'Save'}
            </Button>
          </div>
        )}
      </form>
    </section>
  );
}
