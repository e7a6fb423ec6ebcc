// The errors ctkit throws. Argument mistakes are CtkitTypeError (a wrong type: not a
// Uint8Array, a view of a detached buffer, options that are not an object) and CtkitRangeError
// (a wrong length or value, naming the parameter and what is allowed) — subclasses of the
// built-in TypeError and RangeError, so `instanceof TypeError` still holds — and the classes
// below cover the rest. No message ever includes key, plaintext or tag bytes.

// Each class names itself in a static `errorName`, because bundlers rename classes when they
// minify (`new.target.name` would be a mangled identifier); `name` is set from the class's own
// errorName, or its class name for a subclass that declares none.

/** A class, seen as the function object that carries its name and static fields. */
type ClassObject = abstract new (...args: never[]) => unknown;

function nameOf(target: ClassObject, fallback: ClassObject): string {
  const own = Object.hasOwn(target, 'errorName') ? (target as { errorName?: unknown }).errorName : undefined;
  return typeof own === 'string' ? own : target.name || (fallback as { errorName?: string }).errorName || 'Error';
}

/** Base class of ctkit's own errors. */
export class CtkitError extends Error {
  static readonly errorName: string = 'CtkitError';
  constructor(message: string) {
    super(message);
    this.name = nameOf(new.target, CtkitError);
  }
}

/** A tag did not verify. No plaintext was released. */
export class AuthenticationError extends CtkitError {
  static override readonly errorName: string = 'AuthenticationError';
  constructor(message = 'authentication failed: the tag does not match') {
    super(message);
  }
}

/** An object was used after digest() or dispose(). */
export class StateError extends CtkitError {
  static override readonly errorName: string = 'StateError';
}

/** An encoding is malformed (DER, PEM, JWK, a point's octet string); the message says what. */
export class EncodingError extends CtkitError {
  static override readonly errorName: string = 'EncodingError';
}

/** A key is well-formed but not valid: a private scalar outside [1, n−1], a point not on the curve, a key for another curve. */
export class InvalidKeyError extends CtkitError {
  static override readonly errorName: string = 'InvalidKeyError';
}

/** An argument of the wrong type (a TypeError): not a Uint8Array, a view of a detached ArrayBuffer, options that are not an object, a hash that is not ctkit's. */
export class CtkitTypeError extends TypeError {
  static readonly errorName: string = 'CtkitTypeError';
  constructor(message: string) {
    super(message);
    this.name = nameOf(new.target, CtkitTypeError);
  }
}

/** An argument of the wrong length or value (a RangeError); the message names the parameter and what is allowed. */
export class CtkitRangeError extends RangeError {
  static readonly errorName: string = 'CtkitRangeError';
  constructor(message: string) {
    super(message);
    this.name = nameOf(new.target, CtkitRangeError);
  }
}
