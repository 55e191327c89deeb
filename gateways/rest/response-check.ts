import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { FastifyInstance } from "fastify";

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };
type Document = { paths?: Record<string, Record<string, Operation>>; components?: object };

/** "/api/v1/transactions/{id}" → "/api/v1/transactions/:id", as fastify names the route. */
const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

/**
 * Checks every JSON success answer against the body the OpenAPI document
 * promises for its route and status, and turns a mismatch into an error (500
 * INTERNAL_ERROR, logged with the difference). For tests: the whole REST suite
 * then holds the document, and so the console's generated types, to what the
 * routes really send. Call before the routes are added.
 */
export function checkResponsesAgainstDocument(app: FastifyInstance) {
  let validators: Map<string, ValidateFunction> | undefined;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const build = () => {
    const doc = app.swagger() as Document;
    const out = new Map<string, ValidateFunction>();
    for (const [path, ops] of Object.entries(doc.paths ?? {}))
      for (const [method, op] of Object.entries(ops))
        for (const [status, res] of Object.entries(op.responses ?? {})) {
          const schema = res.content?.["application/json"]?.schema;
          if (!/^2\d\d$/.test(status) || !schema) continue;
          const key = `${method.toUpperCase()} ${fastifyPath(path)} ${status}`;
          out.set(key, ajv.compile({ ...schema, components: doc.components }));
        }
    return out;
  };
  app.addHook("onSend", async (req, reply, payload) => {
    if (typeof payload !== "string" || !String(reply.getHeader("content-type")).startsWith("application/json"))
      return payload;
    validators ??= build();
    const key = `${req.method} ${req.routeOptions.url} ${reply.statusCode}`;
    const validate = validators.get(key);
    if (!validate || validate(JSON.parse(payload))) return payload;
    throw new Error(`the answer of ${key} is not what the OpenAPI document says: ${ajv.errorsText(validate.errors)}`);
  });
}
