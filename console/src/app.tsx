/** The console's routes. Pages live in `pages/<feature>/`; the editor is loaded on demand. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const SignInPage = lazy(() =>
  import('./pages/sign-in/sign-in-page.tsx').then((m) => ({ default: m.SignInPage })),
);

const TestChatPage = lazy(() =>
  import('./pages/test-chat/test-chat-page.tsx').then((m) => ({ default: m.TestChatPage })),
);
const ConversationsPage = lazy(() =>
  import('./pages/conversations/conversations-page.tsx').then((m) => ({
    default: m.ConversationsPage,
  })),
);
const ConversationPage = lazy(() =>
  import('./pages/conversations/conversation-page.tsx').then((m) => ({
    default: m.ConversationPage,
  })),
);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/console">
        <Suspense fallback={<p role="status">Loading…</p>}>
          <Routes>
            <Route path="bots/:appId/chat" element={<TestChatPage />} />
            <Route path="bots/:appId/conversations" element={<ConversationsPage />} />
            <Route path="conversations/:id" element={<ConversationPage />} />
            <Route path="*" element={<SignInPage />} />
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
