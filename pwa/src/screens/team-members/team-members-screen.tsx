import { PageHeader } from '../../components/page-header';

/** Team Members (/team-members). */
export function TeamMembersScreen() {
  return <PageHeader title="Team Members" />;
}
