/**
 * The console's routes, one line per page. Pages live in `pages/<feature>/` and are loaded on
 * demand, so the sign-in page ships none of the others (nor the editor's libraries).
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { isSignedOut } from './api/client.ts';
import { SESSION_KEY } from './api/session.ts';
import { Layout } from './components/layout.tsx';
import { RequireSession } from './components/require-session.tsx';

/** A page module's named export as a lazy component. */
const page = <K extends string>(load: () => Promise<Record<K, React.ComponentType>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));

<<<<<<< HEAD
const SignInPage = page(() => import('./pages/sign-in/sign-in-page.tsx'), 'SignInPage');
const BotsPage = page(() => import('./pages/bots/bots-page.tsx'), 'BotsPage');
const BotPage = page(() => import('./pages/bots/bot-page.tsx'), 'BotPage');
const NotBuilt = lazy(() =>
  import('./pages/not-built/not-built-page.tsx').then((m) => ({ default: m.NotBuiltPage })),
=======
const FlowEditorPage = lazy(() =>
  import('./pages/flow-editor/flow-editor-page.tsx').then((m) => ({ default: m.FlowEditorPage })),
);
const SignInPage = lazy(() =>
  import('./pages/sign-in/sign-in-page.tsx').then((m) => ({ default: m.SignInPage })),
>>>>>>> wip/editor
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
<<<<<<< HEAD
            <Route path="sign-in" element={<SignInPage />} />
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
              <Route path="conversations" element={<NotBuilt title="Conversations" />} />
              <Route path="knowledge" element={<NotBuilt title="Knowledge" />} />
              <Route path="operations" element={<NotBuilt title="Operations" />} />
              <Route path="*" element={<NotBuilt title="Not found" />} />
            </Route>
=======
            <Route path="bots/:appId/flow" element={<FlowEditorPage />} />
            <Route path="*" element={<SignInPage />} />
>>>>>>> wip/editor
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
