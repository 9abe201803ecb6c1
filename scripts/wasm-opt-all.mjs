// `node scripts/wasm-opt-all.mjs OUT_DIR MODULE...`: what `wasm-opt -Oz` does to each
// module (the same Binaryen, its same default passes at optimize level 2, shrink level 2,
// with the features the app's build uses), written to OUT_DIR under the module's name.
// One process loads Binaryen once for all of them: the split build has ~330 modules, and
// starting the `wasm-opt` command for each cost ~0.7 s, most of the app build's time.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

// The pinned Binaryen that scripts/setup.sh installs (its `wasm-opt` is this same build).
const { default: binaryen } = await import(
  new URL("../.tools/binaryen/node_modules/binaryen/index.js", import.meta.url)
);

const [out, ...modules] = process.argv.slice(2);
if (!out || modules.length === 0) {
  console.error("usage: wasm-opt-all.mjs OUT_DIR MODULE...");
  process.exit(2);
}
const features =
  binaryen.Features.MVP |
  binaryen.Features.ReferenceTypes |
  binaryen.Features.BulkMemory |
  binaryen.Features.BulkMemoryOpt |
  binaryen.Features.CallIndirectOverlong |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.SignExt |
  binaryen.Features.MutableGlobals |
  binaryen.Features.Multivalue;
binaryen.setDebugInfo(process.env.HEARTH_WASM_NAMES === "1");
binaryen.setOptimizeLevel(2);
binaryen.setShrinkLevel(2);
// As `wasm-opt` writes an optimised module: through Stack IR, optimised.
binaryen.setGenerateStackIR(true);
binaryen.setOptimizeStackIR(true);
for (const path of modules) {
  const module = binaryen.readBinary(readFileSync(path));
  // As `wasm-opt`: the features the module's target_features section names, and ours.
  module.setFeatures(module.getFeatures() | features);
  module.optimize();
  if (!module.validate()) {
    console.error(`wasm-opt-all: ${path} does not validate after optimising`);
    process.exit(1);
  }
  writeFileSync(join(out, basename(path)), module.emitBinary());
  module.dispose();
}
