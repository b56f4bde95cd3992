// errors.js - MemSandboxError, the package's one error class, and the
// mapping from the C core's result codes to the reference product's codes
// and categories.
import constants from './constants.js';

const CODE_NAMES = Object.fromEntries(
  Object.entries(constants.codes).map(([name, v]) => [v, name]));

// Model- and host-facing code and category for each C result code, after the
// reference product's taxonomy: src/errors.def, through the constants.
const ERROR_KINDS = constants.errorKinds;

const CORRECTABLE = new Set(['invalid_request', 'not_found', 'conflict',
  'quota_exceeded', 'timeout']);

/**
 * The one error class of the package. `code` is a snake_case string
 * ("path_not_found"), `category` the reference product's category
 * ("not_found"), `errno` the C result code when one applies, `operation`
 * the call that failed ("write") and `path` the path it was given, when
 * there was one.
 */
export class MemSandboxError extends Error {
  /**
   * @param {string} code
   * @param {string} category
   * @param {string} message
   * @param {{errno?: number, operation?: string, path?: string}} [detail]
   */
  constructor(code, category, message, detail = {}) {
    super(message);
    this.name = 'MemSandboxError';
    this.code = code;
    this.category = category;
    if (detail.errno !== undefined) this.errno = detail.errno;
    if (detail.operation !== undefined) this.operation = detail.operation;
    if (detail.path !== undefined) this.path = detail.path;
  }

  /** Whether a model can fix the call (the reference's rule). */
  get correctable() {
    return CORRECTABLE.has(this.category);
  }

  /** Whether retrying the same call may succeed. */
  get retryable() {
    return this.category === 'timeout';
  }

  toJSON() {
    return { category: this.category, code: this.code, message: this.message,
      correctable: this.correctable, retryable: this.retryable };
  }
}

/**
 * The error for a negative C result code.
 * @param {number} rc
 * @param {string} message
 * @param {{operation?: string, path?: string}} [where]
 */
export function errorFromCode(rc, message, where = {}) {
  const [code, category] = ERROR_KINDS[CODE_NAMES[rc]] ?? ['internal_error', 'internal'];
  return new MemSandboxError(code, category, message, { ...where, errno: rc });
}

/** An invalid_argument error: the host passed something malformed. */
export function invalid(message) {
  return new MemSandboxError('invalid_argument', 'invalid_request', message);
}
