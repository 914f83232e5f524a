/** A section of the console that is not built yet. */
export function NotBuiltPage({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>This page is not built yet. The admin API already serves it: see /v2/openapi.json.</p>
    </>
  );
}
