import { PageHeader } from '../../components/page-header';

/** Direct Messages (/direct-messages). */
export function DirectMessagesScreen() {
  return <PageHeader title="Direct Messages" />;
}
