import { PageHeader } from '../../components/page-header';

/** Employee Management (/employees). */
export function EmployeesScreen() {
  return <PageHeader title="Employee Management" />;
}
