// The examples are plain ESM: jest loads them as they are (no transform),
// under `node --experimental-vm-modules`, so that they import the package by
// its name and its "exports" map, as any app does.
export default { testEnvironment: "node", transform: {}, testMatch: ["**/jest.test.mjs"] };
