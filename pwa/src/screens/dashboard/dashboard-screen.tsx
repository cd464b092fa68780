import { PageHeader } from '../../components/page-header';

/** Dashboard (/dashboard). */
export function DashboardScreen() {
  return <PageHeader title="Dashboard" />;
}
