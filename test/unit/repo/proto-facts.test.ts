// The tables protoc-gen-facts writes (gen/**/a2a_facts.ts) must say what the
// proto's own options say: each is compared with the google.api.field_behavior
// and google.api.http options of proto/ as buf compiles it. The generated
// descriptors, which leave those options out, must not load the files that
// declare them.

import { createFileRegistry, getExtension, toJson, type DescFile } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as V03Facts from "../../../gen/a2a/v1/a2a_facts.js";
import { file_a2a_v1_a2a } from "../../../gen/a2a/v1/a2a_pb.js";
import { http } from "../../../gen/google/api/annotations_pb.js";
import { FieldBehavior, field_behavior } from "../../../gen/google/api/field_behavior_pb.js";
import { HttpRuleSchema, type HttpRuleJson } from "../../../gen/google/api/http_pb.js";
import * as V1Facts from "../../../gen/lf/a2a/v1/a2a_facts.js";
import { file_lf_a2a_v1_a2a } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { buildDescriptorSet, repoRoot } from "../../../scripts/spec-diff.js";

/** The REQUIRED fields and HTTP rules of `schema` as the compiled proto's options say. */
async function optionsOf(schema: string): Promise<{ required: Record<string, number[]>; rules: Record<string, HttpRuleJson> }> {
  const registry = createFileRegistry(await buildDescriptorSet(`${repoRoot}/proto/${schema}`, schema));
  const file = registry.getFile(schema);
  if (!file) throw new Error(`${schema} is not in the descriptor set`);
  const required: Record<string, number[]> = {};
  const rules: Record<string, HttpRuleJson> = {};
  for (const type of registry) {
    if (type.kind === "message" && type.file === file) {
      const names = type.fields
        .filter((f) => f.proto.options && getExtension(f.proto.options, field_behavior).includes(FieldBehavior.REQUIRED))
        .map((f) => f.number);
      if (names.length > 0) required[type.typeName] = names;
    }
  }
  for (const service of file.services) {
    for (const method of service.methods) {
      if (method.proto.options)
        rules[`${service.typeName}.${method.name}`] = toJson(HttpRuleSchema, getExtension(method.proto.options, http)) as HttpRuleJson;
    }
  }
  return { required, rules };
}

function importsOf(file: DescFile): string[] {
  return file.dependencies.map((d) => d.name);
}

describe.each([
  { schema: "lf/a2a/v1/a2a.proto", facts: V1Facts, file: file_lf_a2a_v1_a2a },
  { schema: "a2a/v1/a2a.proto", facts: V03Facts, file: file_a2a_v1_a2a },
])("the generated facts of $schema", ({ schema, facts, file }) => {
  it("list the REQUIRED fields of every message and the HTTP rule of every method, as the proto's options", async () => {
    const { required, rules } = await optionsOf(schema);
    expect(Object.keys(required).length).toBeGreaterThan(0);
    expect(Object.keys(rules).length).toBe(file.services.flatMap((s) => s.methods).length);
    expect({ ...facts.REQUIRED_FIELDS }).toEqual(required);
    expect({ ...facts.HTTP_RULES }).toEqual(rules);
  });

  it("stand in for options the generated descriptors leave out, with the files that declare them", () => {
    expect(importsOf(file)).toEqual(["google/protobuf/empty", "google/protobuf/struct", "google/protobuf/timestamp"]);
  });
});
