#!/usr/bin/env node
// `npx mcpguard ...`: runs the mcpguard binary of this platform, which npm installed from the
// optional dependency that fits it (@mcpguard/cli-linux-x64 and the others, the pattern biome
// and esbuild use). The binary gets this process's arguments, standard streams and environment;
// a signal to this process is passed on, and this process ends as the binary does, with its
// exit code, so a proxy started through npx never outlives its client.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const platforms = {
  "linux x64": "@mcpguard/cli-linux-x64",
  "linux arm64": "@mcpguard/cli-linux-arm64",
  "darwin x64": "@mcpguard/cli-darwin-x64",
  "darwin arm64": "@mcpguard/cli-darwin-arm64",
  "win32 x64": "@mcpguard/cli-win32-x64",
};

function binary() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = platforms[key];
  const exe = process.platform === "win32" ? "mcpguard.exe" : "mcpguard";
  if (!pkg) {
    fail(
      `no mcpguard binary is published for ${key}. Published: ${Object.keys(platforms).join(", ")}.\n` +
        "Install from source instead: cargo install mcpguard",
    );
  }
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `${pkg}, the binary for ${key}, is not installed. npm installs it as an optional ` +
        "dependency of mcpguard: reinstall without --no-optional / --omit=optional, " +
        `or add it yourself: npm install ${pkg}`,
    );
  }
}

function fail(message) {
  process.stderr.write(`mcpguard: ${message}\n`);
  process.exit(2);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => fail(`cannot run ${path.basename(child.spawnfile)}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
