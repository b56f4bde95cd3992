// memsandbox.wasm.d.ts - the module as bundlers and Workers import it
// (`import wasm from 'memsandbox/memsandbox.wasm'`), to pass as { wasm }.
declare const wasm: WebAssembly.Module;
export default wasm;
