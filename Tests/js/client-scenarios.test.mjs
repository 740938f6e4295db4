// The shared client scenarios (Tests/Fixtures/client-scenarios) against the page's machine;
// the Swift suite runs the same files against RemoteModalClient. Run: node --test Tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { runScenario, scenarios } from "./scenarios.mjs";

const all = scenarios();

test("there are shared scenarios to run", () => {
  assert.ok(all.length >= 12, `only ${all.length} scenarios`);
});

for (const { name, scenario } of all) {
  test(`scenario ${name}: ${scenario.title}`, () => {
    const problems = runScenario(scenario);
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}
