//! The images a model sends inside its reply, kept as they arrive: decoded and checked
//! (`hearth_core::chat::output_image`), their bytes in the private file system's
//! `images/`, or in the record when the file system refuses them, or the reason they
//! could not be kept. Keeping an image never fails the reply.

use hearth_core::chat::output_image::{self, DecodedImage, KeptImage};
use hearth_core::provider::ImageData;

use crate::chat::images::extension;
use crate::files::{self, IMAGES};

/// What the reply keeps of `image`.
pub async fn keep(image: &ImageData) -> KeptImage {
    match output_image::decode(image) {
        Ok(DecodedImage::Bytes { mime_type, bytes }) => {
            let file = files::new_name(extension(mime_type));
            match files::save(IMAGES, &file, &bytes).await {
                Ok(()) => KeptImage::Stored {
                    file,
                    mime_type: mime_type.to_string(),
                },
                Err(error) => {
                    leptos::logging::warn!("an image of the reply stays in its record: {error}");
                    output_image::inline_fallback(mime_type, &bytes)
                }
            }
        }
        Ok(DecodedImage::Remote { url }) => KeptImage::Remote { url },
        Err(reason) => KeptImage::Lost { reason },
    }
}
