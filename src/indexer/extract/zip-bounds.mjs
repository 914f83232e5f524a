// @ts-check
/**
 * Bounds on what a zip (xlsx, ods) may unpack to, for the spreadsheet worker: SheetJS inflates
 * zip entries into buffers outside the V8 heap, where the worker's `resourceLimits` do not reach.
 */
import zlib from 'node:zlib';

class TooLarge extends Error {}

/**
 * A stand-in for the `zlib` module that SheetJS inflates zip entries with: native zlib (faster
 * than SheetJS's own inflater) with an output cap, so a zip bomb stops at `budget` bytes in total
 * instead of growing buffers outside the V8 heap, where `resourceLimits` does not reach.
 */
/**
 * @param {number} budget
 * @returns {{ InflateRaw: new () => unknown, exceeded: () => boolean }}
 */
export function boundedZlib(budget) {
  let left = budget;
  let exceeded = false;
  class BoundedInflateRaw {
    #inner = zlib.createInflateRaw({ maxOutputLength: Math.max(1, left) });
    _finishFlushFlag = zlib.constants.Z_FINISH;
    get bytesRead() {
      return this.#inner.bytesWritten;
    }
    /**
     * @param {Uint8Array} chunk
     * @param {number} flush
     * @returns {Buffer}
     */
    _processChunk(chunk, flush) {
      // `_processChunk` is what SheetJS calls on zlib's inflater; it is not in Node's typings.
      const inner = /** @type {{ _processChunk(c: Uint8Array, f: number): Buffer }} */ (
        /** @type {unknown} */ (this.#inner)
      );
      try {
        const out = inner._processChunk(chunk, flush);
        left -= out.length;
        if (left < 0) throw new TooLarge();
        return out;
      } catch (error) {
        if (error instanceof TooLarge || codeOf(error) === 'ERR_BUFFER_TOO_LARGE') {
          exceeded = true;
          throw new TooLarge();
        }
        throw error;
      }
    }
  }
  return { InflateRaw: BoundedInflateRaw, exceeded: () => exceeded };
}

/**
 * The uncompressed size a zip's central directory declares for all its entries together, or 0
 * when there is no readable directory (then SheetJS decides). Declared sizes can lie; the bounded
 * inflater catches liars, this only refuses honest bombs before anything is inflated.
 */
/**
 * @param {Uint8Array} bytes
 * @returns {number}
 */
export function declaredUnpackedSize(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let end = bytes.length - 22; end >= lowest; end -= 1) {
    if (view.getUint32(end, true) !== 0x06054b50) continue;
    const count = view.getUint16(end + 10, true);
    let at = view.getUint32(end + 16, true);
    let total = 0;
    for (let i = 0; i < count && at + 46 <= bytes.length; i += 1) {
      if (view.getUint32(at, true) !== 0x02014b50) break;
      total += view.getUint32(at + 24, true);
      const names = view.getUint16(at + 28, true) + view.getUint16(at + 30, true);
      at += 46 + names + view.getUint16(at + 32, true);
    }
    return total;
  }
  return 0;
}

/**
 * @param {unknown} error
 * @returns {unknown}
 */
function codeOf(error) {
  return typeof error === 'object' && error !== null
    ? /** @type {{ code?: unknown }} */ (error).code
    : undefined;
}
