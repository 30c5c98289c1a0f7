// Whether a host name is this machine: credentials may go there over plain http://, and
// cookies marked Secure may be sent there (ARCHITECTURE.md §5). Its own module so that the
// cookie jar can ask without loading the HTTP client.
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
