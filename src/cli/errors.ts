// The CLI's two outcomes besides success: a usage error (exit 2) and a failure of
// authentication, verification or a damaged input (exit 1).
export class UsageError extends Error {
  override name = 'UsageError';
}
export class Failure extends Error {
  override name = 'Failure';
}
