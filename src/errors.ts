// The errors ctkit throws. Argument mistakes are the built-in TypeError (wrong type) and
// RangeError (wrong length, naming the parameter and the lengths allowed); these classes cover
// the rest. No message ever includes key, plaintext or tag bytes.

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
