/** Sign in: the admin key is exchanged once for a session cookie (POST /v2/session). */
export function SignInPage() {
  return (
    <main>
      <h1>botwire console</h1>
    </main>
  );
}
