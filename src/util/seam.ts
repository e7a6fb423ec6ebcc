// Test seams that leave no trace in the public types. An internal factory (src/internal.ts,
// which the package does not export) runs one constructor or call inside withSeams(); that
// constructor or function calls takeSeams() before anything else and gets them. Constructors
// and these calls are synchronous, so the seams reach exactly the object or call the factory
// made; takeSeams() clears them, so nothing built inside that constructor sees them, and
// withSeams() clears them however the call ends.

let pending: object | undefined;

/** Runs make() with seams for the first takeSeams() inside it. */
export function withSeams<T>(seams: object, make: () => T): T {
  pending = seams;
  try {
    return make();
  } finally {
    pending = undefined;
  }
}

/** The seams of the enclosing withSeams() (and clears them); {} outside one. */
export function takeSeams<S extends object>(): Partial<S> {
  const s = pending;
  pending = undefined;
  return (s ?? {}) as Partial<S>;
}
