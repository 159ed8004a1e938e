/**
 * The two A2A gRPC methods the benchmarks call, as a @grpc/grpc-js service
 * definition whose (de)serializers pass bytes through untouched, for the
 * raw gRPC client: it decides itself what to encode and decode, so it pays
 * for no codec layer but protobuf-es's own.
 */
import type { ServiceDefinition } from "@grpc/grpc-js";

const SERVICE = "/lf.a2a.v1.A2AService";
const bytes = (b: Buffer): Buffer => b;

export const PASS_THROUGH_A2A_SERVICE = {
  SendMessage: {
    path: `${SERVICE}/SendMessage`,
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  },
  SendStreamingMessage: {
    path: `${SERVICE}/SendStreamingMessage`,
    requestStream: false,
    responseStream: true,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  },
} satisfies ServiceDefinition;
