// The error of bad input, shared by every module of the toolpack.

/**
 * An error in the caller's input, not a failure of the toolpack: `statusCode` 400 tells the gateway's
 * Tools API to answer 400 and log it at info (Suzumio ignores the field).
 */
export function inputError(message) {
  return Object.assign(new Error(message), { statusCode: 400 });
}
