// emcc-asyncify.js - tells Emscripten's link that the asyncify.* imports of
// src/coro.c exist. They are no JavaScript functions: the build's
// `wasm-opt --asyncify` turns them into calls to the functions its pass
// creates, so the module imports none of them (make check-imports).
mergeInto(LibraryManager.library, {
  start_unwind: function () {},
  stop_unwind: function () {},
  start_rewind: function () {},
  stop_rewind: function () {},
});
