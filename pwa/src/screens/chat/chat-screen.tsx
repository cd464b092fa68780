import { PageHeader } from '../../components/page-header';

/** Team Chat (/chat). */
export function ChatScreen() {
  return <PageHeader title="Team Chat" />;
}
