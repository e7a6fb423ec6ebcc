// The errors ctkit throws. Argument mistakes are CtkitTypeError (a wrong type: not a
// Uint8Array, a view of a detached buffer, options that are not an object) and CtkitRangeError
// (a wrong length or value, naming the parameter and what is allowed) — subclasses of the
// built-in TypeError and RangeError, so `instanceof TypeError` still holds — and the classes
// below cover the rest. No message ever includes key, plaintext or tag bytes.

/** Base class of ctkit's own errors. */
export class CtkitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A tag did not verify. No plaintext was released. */
export class AuthenticationError extends CtkitError {
  constructor(message = 'authentication failed: the tag does not match') {
    super(message);
  }
}

/** An object was used after digest() or dispose(). */
export class StateError extends CtkitError {}

/** An encoding is malformed (DER, PEM, JWK, a point's octet string); the message says what. */
export class EncodingError extends CtkitError {}

/** A key is well-formed but not valid: a private scalar outside [1, n−1], a point not on the curve, a key for another curve. */
export class InvalidKeyError extends CtkitError {}

/** An argument of the wrong type (a TypeError): not a Uint8Array, a view of a detached ArrayBuffer, options that are not an object, a hash that is not ctkit's. */
export class CtkitTypeError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** An argument of the wrong length or value (a RangeError); the message names the parameter and what is allowed. */
export class CtkitRangeError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
