#!/bin/sh
# Regenerates Token.bin (creation bytecode, hex, no 0x, no newline) from Token.sol with the
# pinned solc (npm `solc` package, the emscripten build: no native compiler needed).
#
#   crates/exec/benches/erc20/build.sh
#
# Settings: optimizer on, 200 runs, solc's default EVM version for 0.8.28 (cancun). The
# bytecode ends with solc's metadata hash, which covers the source text and settings, so any
# change to Token.sol changes Token.bin. Network is needed only here (npm), never at bench time.
set -eu
SOLC_VERSION=0.8.28
here=$(cd "$(dirname "$0")" && pwd)
work=${SOLC_WORK:-/tmp/cowboy-solc-$SOLC_VERSION}
mkdir -p "$work"
if [ ! -x "$work/node_modules/.bin/solcjs" ]; then
    (cd "$work" && npm install --no-save --no-audit --no-fund "solc@$SOLC_VERSION" >/dev/null)
fi
cd "$here"
SOLC_MODULE="$work/node_modules/solc" node - <<'JS'
const fs = require("fs");
const solc = require(process.env.SOLC_MODULE);
const input = {
  language: "Solidity",
  sources: { "Token.sol": { content: fs.readFileSync("Token.sol", "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "Token.sol": { Token: ["evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const c = out.contracts["Token.sol"].Token;
fs.writeFileSync("Token.bin", c.evm.bytecode.object);
console.log(`solc ${solc.version()}: Token.bin ${c.evm.bytecode.object.length / 2} bytes creation, ` +
  `${c.evm.deployedBytecode.object.length / 2} bytes runtime`);
JS
