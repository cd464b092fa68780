import { PageHeader } from '../../components/page-header';

/** My Tasks & Projects (/my-tasks). */
export function MyTasksScreen() {
  return <PageHeader title="My Tasks & Projects" />;
}
