/**
 * The console's routes, one line per page. Pages live in `pages/<feature>/` and are loaded on
 * demand, so the sign-in page ships none of the others (nor the editor's libraries).
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { isSignedOut } from './api/api-error.ts';
import { SESSION_KEY } from './api/session.ts';
import { Layout } from './components/layout.tsx';
import { RequireSession } from './components/require-session.tsx';

/** A page module's named export as a lazy component. */
const page = <K extends string>(load: () => Promise<Record<K, React.ComponentType>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));

const SignInPage = page(() => import('./pages/sign-in/sign-in-page.tsx'), 'SignInPage');
const BotsPage = page(() => import('./pages/bots/bots-page.tsx'), 'BotsPage');
const BotPage = page(() => import('./pages/bots/bot-page.tsx'), 'BotPage');
const FlowEditorPage = page(
  () => import('./pages/flow-editor/flow-editor-page.tsx'),
  'FlowEditorPage',
);
const TestChatPage = page(() => import('./pages/test-chat/test-chat-page.tsx'), 'TestChatPage');
const ConversationsPage = page(
  () => import('./pages/conversations/conversations-page.tsx'),
  'ConversationsPage',
);
const AnalyticsPage = page(() => import('./pages/analytics/analytics-page.tsx'), 'AnalyticsPage');
const ConversationPage = page(
  () => import('./pages/conversations/conversation-page.tsx'),
  'ConversationPage',
);
const KnowledgePage = page(() => import('./pages/knowledge/knowledge-page.tsx'), 'KnowledgePage');
const CollectionPage = page(
  () => import('./pages/knowledge/collection-page.tsx'),
  'CollectionPage',
);
const OperationsPage = page(
  () => import('./pages/operations/operations-page.tsx'),
  'OperationsPage',
);
const InboxPage = page(() => import('./pages/inbox/inbox-page.tsx'), 'InboxPage');
const HandoffPage = page(() => import('./pages/inbox/handoff-page.tsx'), 'HandoffPage');
const AuditPage = page(() => import('./pages/audit/audit-page.tsx'), 'AuditPage');
const AccountsPage = page(() => import('./pages/accounts/accounts-page.tsx'), 'AccountsPage');
const TokensPage = page(() => import('./pages/accounts/tokens-page.tsx'), 'TokensPage');
const InvitePage = page(() => import('./pages/accounts/invite-page.tsx'), 'InvitePage');
const NotBuilt = lazy(() =>
  import('./pages/not-built/not-built-page.tsx').then((m) => ({ default: m.NotBuiltPage })),
);

// A 401 anywhere means the session ended: forget it, and RequireSession sends the operator to
// the sign-in page.
const onError = (error: unknown) => {
  if (isSignedOut(error)) queryClient.setQueryData(SESSION_KEY, null);
};
const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      retry: (count, error) => !isSignedOut(error) && count < 1,
      refetchOnWindowFocus: false,
    },
  },
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/console">
        <Suspense fallback={<p role="status">Loading…</p>}>
          <Routes>
            <Route path="sign-in" element={<SignInPage />} />
            <Route path="invite/:token" element={<InvitePage />} />
            <Route
              element={
                <RequireSession>
                  <Layout />
                </RequireSession>
              }
            >
              <Route index element={<Navigate to="/bots" replace />} />
              <Route path="bots" element={<BotsPage />} />
              <Route path="bots/:appId" element={<BotPage />} />
              <Route path="bots/:appId/flow" element={<FlowEditorPage />} />
              <Route path="bots/:appId/chat" element={<TestChatPage />} />
              <Route path="bots/:appId/conversations" element={<ConversationsPage />} />
              <Route path="bots/:appId/analytics" element={<AnalyticsPage />} />
              <Route path="conversations/:id" element={<ConversationPage />} />
              <Route path="inbox" element={<InboxPage />} />
              <Route path="inbox/:id" element={<HandoffPage />} />
              <Route path="knowledge" element={<KnowledgePage />} />
              <Route path="knowledge/:name" element={<CollectionPage />} />
              <Route path="operations" element={<OperationsPage />} />
              <Route path="audit" element={<AuditPage />} />
              <Route path="accounts" element={<AccountsPage />} />
              <Route path="tokens" element={<TokensPage />} />
              <Route path="*" element={<NotBuilt title="Not found" />} />
            </Route>
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
