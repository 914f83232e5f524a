/**
 * Why an outside call got no answer, as a short code that is safe to show and log: the system or
 * TLS error code (`ENOTFOUND`, `ECONNREFUSED`, `CERT_HAS_EXPIRED`, ...) found on the error or its
 * `cause` chain (fetch puts it on `cause`), `timeout` for a request that ran out of time, `bad port`
 * for a port fetch refuses to use (1, 25, 6000, ...), else
 * the error's name. Never the error's text: a request URL in it may hold a bot token.
 */

/** How deep the `cause` chain is followed. */
const MAX_DEPTH = 5;
const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * The code of a failed outside call, e.g. for `Telegram could not be reached (ECONNREFUSED)`.
 *
 * @param error what the HTTP client threw.
 * @returns a system or TLS error code, `timeout`, or the error's name (`Error` when unknown).
 */
export function failureCause(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current && typeof current === 'object'; depth++) {
    const { name, code } = current as { name?: unknown; code?: unknown };
    if (name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
    if (typeof code === 'string' && CODE.test(code)) return code;
    if ((current as { message?: unknown }).message === 'bad port') return 'bad port';
    current = (current as { cause?: unknown }).cause;
  }
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : 'Error';
}
