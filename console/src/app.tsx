/** The console's routes. Pages live in `pages/<feature>/`; the editor is loaded on demand. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const FlowEditorPage = lazy(() =>
  import('./pages/flow-editor/flow-editor-page.tsx').then((m) => ({ default: m.FlowEditorPage })),
);
const SignInPage = lazy(() =>
  import('./pages/sign-in/sign-in-page.tsx').then((m) => ({ default: m.SignInPage })),
);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/console">
        <Suspense fallback={<p role="status">Loading…</p>}>
          <Routes>
            <Route path="bots/:appId/flow" element={<FlowEditorPage />} />
            <Route path="*" element={<SignInPage />} />
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
