import { CircleAlert, CircleCheck, WifiOff } from 'lucide-react';
import { accessTexts, canChangeSignupPolicy, canManageEmployees } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { Button } from '../../components/button';
import { FormAlert } from '../../components/form-alert';
import { PageHeader } from '../../components/page-header';
import { useFlash } from '../../components/use-flash';
import { useOnline } from '../../data/hooks';
import { EmployeesTabs } from '../employees/employees-tabs';
import { InvitationsSection } from './invitations-section';
import { PasswordResetSection } from './password-reset-section';
import { SignupPolicySection } from './signup-policy-section';
import { useWorkspaceAccess } from './use-workspace-access';
import employeeStyles from '../employees/employees.module.css';
import styles from './workspace-settings.module.css';

/**
 * Employee Management's Settings (/employees/settings): who may join, invitation links and forgotten passwords. A tab
 * of Employees for managers; admins, who do not manage employees (spec section 6), reach it from the sidebar.
 */
export function WorkspaceSettingsScreen() {
  const { user } = useAuth();
  const online = useOnline();
  const [flash, showFlash] = useFlash(3000);
  // The route's guard lets only signed-in managers and admins in.
  const actor = user ?? { id: '', role: 'employee' as const };
  const access = useWorkspaceAccess(actor);
  const managesEmployees = canManageEmployees(actor);

  return (
    <div className={styles.page}>
      {flash && (
        <div
          className={`${employeeStyles.flash} ${flash.kind === 'success' ? employeeStyles.flashSuccess : employeeStyles.flashError}`}
          role={flash.kind === 'success' ? 'status' : 'alert'}
        >
          {flash.kind === 'success' ? (
            <CircleCheck size={18} aria-hidden="true" />
          ) : (
            <CircleAlert size={18} aria-hidden="true" />
          )}
          <span>{flash.text}</span>
        </div>
      )}
      <PageHeader
        title={managesEmployees ? 'Employee Management' : 'Workspace Settings'}
        subtitle="Who may join the workspace, invitation links and forgotten passwords."
      />
      <EmployeesTabs />

      {!online && (
        <p className={styles.offlineBanner} role="status">
          <WifiOff size={18} aria-hidden="true" />
          {accessTexts.policyNeedsNetwork}
        </p>
      )}
      {access.error !== null && online && (
        <div className={styles.loadError}>
          <FormAlert message={access.error} />
          <Button variant="secondary" size="small" onClick={access.reload}>
            Try Again
          </Button>
        </div>
      )}

      <div className={styles.sections}>
        {access.settings === undefined || access.invitations === undefined ? (
          online && access.error === null && <p role="status">Loading settings...</p>
        ) : (
          <>
            <SignupPolicySection
              key={access.settings.signup.changedAt ?? 'default'}
              settings={access.settings}
              canChange={canChangeSignupPolicy(actor)}
              online={online}
              onSaved={access.setSettings}
              onFlash={showFlash}
            />
            <InvitationsSection
              invitations={access.invitations}
              online={online}
              onChanged={access.reload}
              onFlash={showFlash}
            />
          </>
        )}
        <PasswordResetSection actor={actor} online={online} />
      </div>
    </div>
  );
}
