/**
 * Where an SDK peer departs from the A2A specification, each named once:
 * peer and release, where (binding and version), what it does, the spec
 * section it departs from, and what this client does about it. The interop
 * suite (suite.ts) looks a deviation up by peer, interface and feature, puts
 * its id in the test's title and asserts what the client does; the matrix
 * (docs/interop.md, scripts/interop-matrix.ts) lists them. A deviation here
 * is never a skip: the test still runs and asserts.
 */
import type { Binding } from "../../src/index.js";
import type { PeerId, PeerVersion, Served } from "../support/sdk-peers.js";

/** What the suite proves per interface, in the matrix's column order. */
export const FEATURES = [
  "discovery",
  "send",
  "message",
  "stream",
  "get-task",
  "input-required",
  "fail",
  "cancel",
  "subscribe",
  "resume",
  "list-tasks",
  "push-config",
  "push-delivery",
  "extended-card",
  "errors",
  "extensions",
] as const;
export type Feature = (typeof FEATURES)[number];

export interface Deviation {
  /** Short, stable, unique: the matrix's footnote and the test title name it. */
  id: string;
  peer: PeerId;
  /** The release the behaviour was seen on. */
  release: string;
  /** Where it shows; unset fields match every binding or version. */
  binding?: Binding;
  version?: PeerVersion;
  feature: Feature;
  /** What the peer does. */
  does: string;
  /** The section of the specification it departs from. */
  spec: string;
  /** What this client does about it (the test asserts this). */
  client: string;
}

export const DEVIATIONS: readonly Deviation[] = [];

/** The peer's deviation on this interface and feature, if it has one. */
export function deviationOf(peer: PeerId, served: Served, feature: Feature): Deviation | undefined {
  return DEVIATIONS.find(
    (d) =>
      d.peer === peer &&
      d.feature === feature &&
      (d.binding === undefined || d.binding === served.binding) &&
      (d.version === undefined || d.version === served.version),
  );
}

/** A test title: `feature: what`, and `[deviation id]` when the peer has one here. */
export function titled(feature: Feature, what: string, deviation: Deviation | undefined): string {
  return deviation ? `${feature}: ${what} [deviation ${deviation.id}]` : `${feature}: ${what}`;
}
