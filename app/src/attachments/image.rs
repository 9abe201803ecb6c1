//! An attached image made ready in the browser: its size read from its header first
//! (`hearth_core::image_header`, so a decompression bomb is refused before any decoding),
//! then decoded, scaled down and encoded as `hearth_core::attachment` decides
//! (`image_target`, `encode_attempts`) until it is small enough to send, and a thumbnail
//! drawn for the chips. Part of the attachment reader's lazily loaded chunk.

use hearth_core::attachment::{
    AttachError, ImageTarget, MAX_IMAGE_SEND_BYTES, THUMBNAIL_SIDE, encode_attempts, fit_within,
    image_target,
};
use hearth_core::filetype::{FileKind, sniff};
use hearth_core::image_header::{check_pixels, dimensions};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Quality of a thumbnail.
const THUMBNAIL_QUALITY: f64 = 0.8;

/// An image as it is kept.
pub struct Prepared {
    /// The bytes that are kept and sent.
    pub bytes: Vec<u8>,
    /// Their kind (the browser may encode another type than asked).
    pub kind: FileKind,
    /// Their size in pixels.
    pub pixels: (u32, u32),
    /// The thumbnail's bytes.
    pub thumbnail: Vec<u8>,
}

/// `bytes` of `kind` scaled down as needed, with a thumbnail.
pub async fn prepare(kind: FileKind, bytes: Vec<u8>) -> Result<Prepared, AttachError> {
    let (width, height) = dimensions(kind, &bytes).ok_or(AttachError::ImageUnreadable)?;
    check_pixels(width, height)?;
    let source = blob(&bytes, kind.mime())?;
    let (bytes, kind, pixels) = match image_target(kind, width, height, bytes.len() as u64) {
        ImageTarget::Keep => (bytes, kind, (width, height)),
        ImageTarget::Encode {
            width,
            height,
            kind: target,
        } => encode_small(&source, width, height, target).await?,
    };
    let (thumb_width, thumb_height) = fit_within(pixels.0, pixels.1, THUMBNAIL_SIDE);
    let thumbnail = encode(
        &source,
        thumb_width,
        thumb_height,
        FileKind::Webp,
        THUMBNAIL_QUALITY,
    )
    .await?;
    Ok(Prepared {
        bytes,
        kind,
        pixels,
        thumbnail,
    })
}

/// The first encoding of `source` at most `MAX_IMAGE_SEND_BYTES` long.
async fn encode_small(
    source: &web_sys::Blob,
    width: u32,
    height: u32,
    target: FileKind,
) -> Result<(Vec<u8>, FileKind, (u32, u32)), AttachError> {
    for attempt in encode_attempts(width, height) {
        let bytes = encode(
            source,
            attempt.width,
            attempt.height,
            target,
            attempt.quality,
        )
        .await?;
        if bytes.len() as u64 <= MAX_IMAGE_SEND_BYTES {
            // What the browser made, by its bytes: a browser without a WebP encoder
            // gives PNG.
            let kind = sniff(&bytes, None)
                .ok()
                .filter(|k| k.is_image())
                .ok_or(AttachError::ImageUnreadable)?;
            return Ok((bytes, kind, (attempt.width, attempt.height)));
        }
    }
    Err(AttachError::ImageTooDetailed {
        max: MAX_IMAGE_SEND_BYTES,
    })
}

fn blob(bytes: &[u8], mime: &str) -> Result<web_sys::Blob, AttachError> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| AttachError::ImageUnreadable)
}

/// `source` decoded at `width` × `height` and encoded as `kind`.
async fn encode(
    source: &web_sys::Blob,
    width: u32,
    height: u32,
    kind: FileKind,
    quality: f64,
) -> Result<Vec<u8>, AttachError> {
    let unreadable = |_: JsValue| AttachError::ImageUnreadable;
    let options = web_sys::ImageBitmapOptions::new();
    options.set_resize_width(width);
    options.set_resize_height(height);
    options.set_resize_quality(web_sys::ResizeQuality::High);
    let bitmap: web_sys::ImageBitmap = JsFuture::from(
        leptos::prelude::window()
            .create_image_bitmap_with_blob_and_image_bitmap_options(source, &options)
            .map_err(unreadable)?,
    )
    .await
    .map_err(unreadable)?
    .unchecked_into();
    let canvas = web_sys::OffscreenCanvas::new(width, height).map_err(unreadable)?;
    let context: web_sys::OffscreenCanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(unreadable)?
        .ok_or(AttachError::ImageUnreadable)?
        .unchecked_into();
    // A browser that ignored the resize options scales here.
    context
        .draw_image_with_image_bitmap_and_dw_and_dh(
            &bitmap,
            0.0,
            0.0,
            f64::from(width),
            f64::from(height),
        )
        .map_err(unreadable)?;
    bitmap.close();
    let encode = web_sys::ImageEncodeOptions::new();
    encode.set_type(kind.mime());
    encode.set_quality(quality);
    let encoded: web_sys::Blob = JsFuture::from(
        canvas
            .convert_to_blob_with_options(&encode)
            .map_err(unreadable)?,
    )
    .await
    .map_err(unreadable)?
    .unchecked_into();
    let buffer = JsFuture::from(encoded.array_buffer())
        .await
        .map_err(unreadable)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
