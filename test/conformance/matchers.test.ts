/**
 * The ACTS assertion language (spec §5) as scripts/acts/matchers.ts reads
 * it: every operator holding and failing, exact matches, nesting by map and
 * by list, and the errors of a file that misuses it.
 */
import { describe, expect, it } from "vitest";
import { ActsFormatError, check, OPERATOR_NAMES } from "../../scripts/acts/matchers.js";

const holds = (actual: unknown, assertion: unknown) => check(actual, assertion).length === 0;

describe("operators", () => {
  const cases: Array<[operator: string, assertion: unknown, passing: unknown, failing: unknown]> = [
    ["type", { type: "string" }, "x", 1],
    ["type", { type: "object" }, {}, []],
    ["type", { type: "null" }, null, undefined],
    ["exists", { exists: true }, 0, undefined],
    ["absent", { absent: true }, undefined, null],
    ["contains", { contains: "not found" }, "Task not found", "Task missing"],
    ["matches", { matches: "^task-\\d+$" }, "task-12", "task-x"],
    ["starts_with", { starts_with: "ab" }, "abc", "cab"],
    ["ends_with", { ends_with: "bc" }, "abc", "bca"],
    ["gte", { gte: 2 }, 2, 1],
    ["lte", { lte: 2 }, 2, 3],
    ["gt", { gt: 2 }, 3, 2],
    ["lt", { lt: 2 }, 1, 2],
    ["count", { count: 2 }, [1, 2], [1]],
    ["count_gte", { count_gte: 2 }, [1, 2, 3], [1]],
    ["count_lte", { count_lte: 1 }, [], [1, 2]],
    ["one_of", { one_of: ["A", "B"] }, "B", "C"],
    ["all_of", { all_of: [{ type: "string" }, { starts_with: "a" }] }, "ab", "ba"],
    ["any_of", { any_of: [{ type: "number" }, { starts_with: "a" }] }, 3, "ba"],
    ["not", { not: { contains: "x" } }, "abc", "xyz"],
  ];
  it("covers every operator of the specification", () => {
    expect([...new Set(cases.map(([op]) => op))].sort()).toEqual([...OPERATOR_NAMES].sort());
  });
  it.each(cases)("%s %j holds for %j and not for %j", (_op, assertion, passing, failing) => {
    expect(check(passing, assertion)).toEqual([]);
    expect(check(failing, assertion)).toHaveLength(1);
  });
  it("several operators in one map must all hold", () => {
    expect(holds([1, 2], { type: "array", count_gte: 1, count_lte: 2 })).toBe(true);
    expect(check([1, 2, 3], { type: "array", count_lte: 2 })).toEqual([
      { path: "(root)", expected: "an array with count_lte 2", actual: "[1,2,3]" },
    ]);
  });
});

describe("structure", () => {
  it("a bare scalar is exact equality; a map mirrors the object; a list checks elements by position", () => {
    const task = { id: "t", status: { state: "TASK_STATE_WORKING" }, artifacts: [{ parts: [{ text: "hi" }] }] };
    expect(check(task, { id: "t", status: { state: "TASK_STATE_WORKING" }, artifacts: [{ parts: [{ text: "hi" }] }] })).toEqual([]);
    expect(check(task, { artifacts: [{}, {}] })).toEqual([{ path: "artifacts[1]", expected: "an element", actual: "absent" }]);
    expect(check(task, { status: { message: { role: "ROLE_AGENT" } } })).toEqual([
      { path: "status.message", expected: "an object", actual: "absent" },
    ]);
    expect(check({ n: 1 }, { n: "1" })).toEqual([{ path: "n", expected: '"1"', actual: "1" }]);
  });
});

describe("a file that misuses the language", () => {
  it("an unknown operator, beside known ones or where no object is checked, is an ActsFormatError naming it", () => {
    expect(() => check([1], { count_more: 1 })).toThrow(ActsFormatError);
    expect(() => check([1], { count_more: 1 })).toThrow(/\(root\): unknown assertion operator "count_more"/);
    expect(() => check({ a: "x" }, { a: { contains: "x", has: "y" } })).toThrow(/^a: unknown assertion operator "has"/);
  });
  it("an operand of the wrong kind is an ActsFormatError naming the operator", () => {
    expect(() => check([1], { count_gte: "1" })).toThrow(/"count_gte" takes a number, not "1"/);
    expect(() => check("x", { type: "text" })).toThrow(/"type" "text" is none of/);
    expect(() => check("x", { exists: false })).toThrow(/"exists" takes only true/);
  });
});
