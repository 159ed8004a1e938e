/** The interop suite (suite.ts) against the Rust A2A server crates; run with A2A_RUST_PEER=1 (test/support/sdk-peers.ts). */
import { RUST_PEER } from "../support/sdk-peers.js";
import { interopSuite } from "./suite.js";

interopSuite(RUST_PEER);
