//! The wasm entry point; everything else is in the library.

fn main() {
    hearth_app::start();
}
