import { PageHeader } from '../../components/page-header';

/** Task Management (/tasks). */
export function TasksScreen() {
  return <PageHeader title="Task Management" />;
}
