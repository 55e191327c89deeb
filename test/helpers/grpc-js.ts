import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescService,
  type MessageShape,
} from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

type Unary = (req: unknown, metadata: grpc.Metadata) => Promise<unknown>;

/**
 * A real @grpc/grpc-js client for a protobuf-es service: one generic client
 * whose (de)serializers are the schema's toBinary/fromBinary.
 * Methods are keyed by their proto name ("ListUsers").
 */
export function grpcJsClient(address: string, service: DescService) {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const m of service.methods) {
    if (m.methodKind !== "unary") continue;
    const codec = <T extends DescMessage>(schema: T) => ({
      serialize: (msg: unknown) => Buffer.from(toBinary(schema, create(schema, msg as MessageShape<T>))),
      deserialize: (buf: Buffer): unknown => fromBinary(schema, buf),
    });
    const input = codec(m.input);
    const output = codec(m.output);
    definition[m.name] = {
      path: `/${service.typeName}/${m.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
    };
  }
  const Ctor = grpc.makeGenericClientConstructor(definition, service.name);
  const client = new Ctor(address, grpc.credentials.createInsecure()) as unknown as grpc.Client &
    Record<
      string,
      (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void
    >;
  const call =
    (name: string): Unary =>
    (req, metadata) =>
      new Promise((resolve, reject) => client[name](req, metadata, (err, res) => (err ? reject(err) : resolve(res))));
  return { client, call, close: () => client.close() };
}

export function metadata(headers: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k, v);
  return md;
}

/** Awaits a call that must fail and returns the gRPC status, details and Coffer code trailer. */
export async function grpcFailure(
  p: Promise<unknown>,
): Promise<{ code: number; details: string; cofferCode: string | undefined }> {
  try {
    await p;
  } catch (e) {
    const err = e as grpc.ServiceError;
    return {
      code: err.code,
      details: err.details,
      cofferCode: err.metadata?.get("coffer-error-code")[0] as string | undefined,
    };
  }
  throw new Error("the call should have failed");
}
