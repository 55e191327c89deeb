import { create, type DescMessage, type Message, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { ApiKeySchema, PollDeviceCodeResponseSchema } from "../../gen/coffer/v1/auth_pb.js";
import { UserSchema, ListUsersResponseSchema } from "../../gen/coffer/v1/users_pb.js";
import { HealthCheckResponseSchema, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { toRest } from "../../gateways/shared/rest-json.js";

const at = new Date("2026-05-01T12:00:00.123Z");

describe("toRest", () => {
  const row = <T extends DescMessage>(
    what: string,
    schema: T,
    init: MessageInitShape<T>,
    field: string,
    expected: unknown,
  ) => [what, schema as DescMessage, create(schema, init) as Message, field, expected] as const;

  it.each([
    row("unset optional string", UserSchema, { name: "Ann" }, "email", null),
    row("set optional string", UserSchema, { name: "Ann", email: "a@b.c" }, "email", "a@b.c"),
    row("set-but-empty optional string", UserSchema, { name: "Ann", email: "" }, "email", ""),
    row("implicit scalar left empty", UserSchema, {}, "name", ""),
    row("unset Timestamp", UserSchema, {}, "created_at", null),
    row("Timestamp", UserSchema, { createdAt: timestampFromDate(at) }, "created_at", "2026-05-01T12:00:00.123Z"),
    row("unset optional Timestamp", ApiKeySchema, {}, "revoked_at", null),
    row(
      "optional Timestamp",
      ApiKeySchema,
      { revokedAt: timestampFromDate(at) },
      "revoked_at",
      "2026-05-01T12:00:00.123Z",
    ),
    row("unset optional token", PollDeviceCodeResponseSchema, { status: "approved" }, "token", null),
    row(
      "enum by lower-case name",
      HealthCheckResponseSchema,
      { status: HealthCheckResponse_ServingStatus.SERVING },
      "status",
      "serving",
    ),
  ])("%s", (_what, schema, msg, field, expected) => {
    expect(toRest(schema, msg)[field]).toEqual(expected);
  });

  it("uses snake_case proto names and carries every field", () => {
    const out = toRest(
      ApiKeySchema,
      create(ApiKeySchema, { id: "u", shortId: "s", keyPrefix: "cf_AbC1", createdAt: timestampFromDate(at) }),
    );
    expect(Object.keys(out).sort()).toEqual(
      [
        "actor_type",
        "created_at",
        "id",
        "key_prefix",
        "last_used_at",
        "name",
        "revoked_at",
        "scope",
        "short_id",
        "user_id",
      ].sort(),
    );
    expect(out).toMatchObject({ short_id: "s", key_prefix: "cf_AbC1", user_id: null, last_used_at: null });
  });

  it("renders repeated messages element by element", () => {
    const msg = create(ListUsersResponseSchema, {
      users: [
        create(UserSchema, { name: "A", createdAt: timestampFromDate(at) }),
        create(UserSchema, { name: "B", email: "b@x.io" }),
      ],
    });
    expect(toRest(ListUsersResponseSchema, msg)).toEqual({
      users: [
        { id: "", short_id: "", name: "A", email: null, created_at: "2026-05-01T12:00:00.123Z", updated_at: null },
        { id: "", short_id: "", name: "B", email: "b@x.io", created_at: null, updated_at: null },
      ],
    });
  });
});
