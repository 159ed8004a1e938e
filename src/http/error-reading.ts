/**
 * What reads a failed answer of the HTTP bindings, loaded as one when a call
 * first fails (failure-reading.ts): the error bodies, and where a text
 * stops being JSON.
 */
export { genericHttpError, isJsonRpcCode, jsonRpcError, restError, rpcStatusError } from "./error-bodies.js";
export { describeJsonFault } from "./json-fault.js";
export { errorFromServer } from "../errors/classify.js";
