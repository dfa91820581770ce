/** Unpadded base64url (RFC 4648 §5), decoded strictly: wrong alphabet, padding or trailing bits are errors. */

const ALPHABET = /^[A-Za-z0-9_-]*$/;

export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** The bytes of `text`, or null when it is not canonical unpadded base64url. */
export function decodeBase64url(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !ALPHABET.test(text) || text.length % 4 === 1) return null;
  const buf = Buffer.from(text, 'base64url');
  // Buffer ignores stray trailing bits; re-encoding catches a non-canonical spelling.
  if (buf.toString('base64url') !== text) return null;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
