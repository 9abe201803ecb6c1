//! Attaching files in the composer, as the picker does, and making the images to attach.

use std::path::Path;

use crate::AppSession;

/// Chooses `paths` in the composer's file input (as the picker would).
pub async fn attach(session: &AppSession, paths: &[&Path]) {
    session.choose_files("#composer-attach-input", paths).await;
}

/// Waits until the composer shows `count` chips, none of them still reading.
pub async fn ready_chips(session: &AppSession, count: usize) {
    session
        .wait_until(&format!(
            "document.querySelectorAll('.composer .attachment-chip').length === {count} && \
             !document.querySelector('.composer .attachment-chip--busy')"
        ))
        .await;
}

/// A `width` × `height` PNG with a colour gradient (compressed, so the file stays small).
pub fn gradient_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("a PNG header");
        let mut pixels = Vec::with_capacity((width * height * 3) as usize);
        for y in 0..height {
            for x in 0..width {
                pixels.extend([(x * 255 / width) as u8, (y * 255 / height) as u8, 128]);
            }
        }
        writer.write_image_data(&pixels).expect("PNG pixels");
    }
    out
}

/// The names of the stored attachment files in OPFS.
pub async fn stored_files(session: &AppSession) -> serde_json::Value {
    session
        .js_async(
            "const done = arguments[arguments.length - 1];
             (async () => {
               const root = await navigator.storage.getDirectory();
               let dir;
               try { dir = await root.getDirectoryHandle('attachments'); } catch (e) { return []; }
               const names = [];
               for await (const [name] of dir.entries()) names.push(name);
               return names.sort();
             })().then(done, (e) => done(String(e)));",
            vec![],
        )
        .await
}
