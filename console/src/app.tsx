/** The console's routes. Pages live in `pages/<feature>/`; the editor is loaded on demand. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const KnowledgePage = lazy(() =>
  import('./pages/knowledge/knowledge-page.tsx').then((m) => ({ default: m.KnowledgePage })),
);
const CollectionPage = lazy(() =>
  import('./pages/knowledge/collection-page.tsx').then((m) => ({ default: m.CollectionPage })),
);
const OperationsPage = lazy(() =>
  import('./pages/operations/operations-page.tsx').then((m) => ({ default: m.OperationsPage })),
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
            <Route path="knowledge" element={<KnowledgePage />} />
            <Route path="knowledge/:name" element={<CollectionPage />} />
            <Route path="operations" element={<OperationsPage />} />
            <Route path="*" element={<SignInPage />} />
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
