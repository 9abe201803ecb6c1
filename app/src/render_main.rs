//! The render worker's wasm entry point (a separate module, loaded lazily in a Web
//! Worker); see `hearth_app::render`.

fn main() {
    hearth_app::render::worker::serve();
}
