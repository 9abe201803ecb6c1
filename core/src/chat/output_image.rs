//! Images a chat model sends inside its reply (Gemini's inline data, OpenAI's image
//! generation items, an OpenAI-compatible `delta.images` entry): where each one stands in
//! the reply's text, what is kept of it, why one could not be kept, and the reply's text
//! cut into the ordered blocks the screen shows (text, image, text, …).
//!
//! An image's place is the round it came in (the number of tool rounds before it; the
//! final text is round `tool_rounds.len()`) and the byte offset of that round's text it
//! followed. Text only grows while a round streams, so the offset stays valid.

use std::ops::Range;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use crate::provider::ImageData;
use crate::provider::images::{self, ImageError};
use crate::safe_url::is_safe_image_src;

/// The most images one reply keeps; later ones are noted as too many.
pub const MAX_OUTPUT_IMAGES: usize = 16;
/// The largest image kept in the record itself when the file store cannot take it.
pub const MAX_INLINE_BYTES: usize = 2 * 1024 * 1024;
/// The longest remote image URL kept.
pub const MAX_URL_CHARS: usize = 2_048;

/// One image of a reply, at its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputImage {
    /// The round it came in (the number of tool rounds before it).
    pub round: u32,
    /// The byte offset of that round's text it followed.
    pub at: u32,
    /// What is kept of it.
    pub kept: KeptImage,
    /// The provider's opaque token sent back with it in later requests (Gemini's
    /// `thoughtSignature`; empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

/// What a reply keeps of one image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum KeptImage {
    /// Its bytes, as the model sent them, in the private file system's `images/`.
    Stored {
        /// The file's name.
        file: String,
        /// Its type, from its bytes.
        mime_type: String,
    },
    /// Its bytes in the record (base64), because the file store could not take them.
    Inline {
        /// Its type, from its bytes.
        mime_type: String,
        /// The base64 bytes.
        data: String,
    },
    /// A link the model gave; shown only when the user asks to load it.
    Remote {
        /// The URL.
        url: String,
    },
    /// An image that could not be kept, and why.
    Lost {
        /// Why.
        reason: LostReason,
    },
}

impl KeptImage {
    /// Whether its bytes are kept (in the file store or the record).
    pub fn has_bytes(&self) -> bool {
        matches!(self, Self::Stored { .. } | Self::Inline { .. })
    }
}

/// Why an image of a reply could not be kept. Stored as a code; the app words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum LostReason {
    /// The data is not base64.
    #[error("the image data is not base64")]
    Undecodable,
    /// Its bytes are not a PNG, JPEG, WebP or GIF image.
    #[error("the data is not a PNG, JPEG, WebP or GIF image")]
    NotAnImage,
    /// It is larger than [`images::MAX_IMAGE_BYTES`].
    #[error("the image is too large")]
    TooLarge,
    /// Its link is not a web address an image may come from.
    #[error("the image link is not a safe web address")]
    UnsafeLink,
    /// The reply already has [`MAX_OUTPUT_IMAGES`].
    #[error("the reply has too many images")]
    TooMany,
    /// Neither the file store nor the record could take it.
    #[error("the image could not be stored")]
    NotStored,
}

impl LostReason {
    /// Its stored code.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Undecodable => "undecodable",
            Self::NotAnImage => "not_an_image",
            Self::TooLarge => "too_large",
            Self::UnsafeLink => "unsafe_link",
            Self::TooMany => "too_many",
            Self::NotStored => "not_stored",
        }
    }
}

/// An image as decoded from the stream, before it is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedImage {
    /// Bytes of a raster image.
    Bytes {
        /// Its type, from its bytes.
        mime_type: &'static str,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A web link.
    Remote {
        /// The URL.
        url: String,
    },
}

/// Decodes an image the model sent: base64 or a `data:` URL to checked bytes (the type is
/// read from the bytes, never from the label), an `http(s)` link kept as a link.
pub fn decode(image: &ImageData) -> Result<DecodedImage, LostReason> {
    match image {
        ImageData::Base64 { data, .. } => bytes_of(data),
        ImageData::Url { url } => {
            let url = url.trim();
            if let Some(rest) = strip_prefix_ignore_case(url, "data:") {
                let (header, data) = rest.split_once(',').ok_or(LostReason::Undecodable)?;
                if !header.to_ascii_lowercase().ends_with(";base64") {
                    return Err(LostReason::Undecodable);
                }
                return bytes_of(data);
            }
            let web = strip_prefix_ignore_case(url, "https://")
                .or_else(|| strip_prefix_ignore_case(url, "http://"))
                .is_some();
            if web && url.chars().count() <= MAX_URL_CHARS && is_safe_image_src(url) {
                Ok(DecodedImage::Remote {
                    url: url.to_string(),
                })
            } else {
                Err(LostReason::UnsafeLink)
            }
        }
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

fn bytes_of(data: &str) -> Result<DecodedImage, LostReason> {
    match images::decode_base64(data) {
        Ok((mime_type, bytes)) => Ok(DecodedImage::Bytes { mime_type, bytes }),
        Err(ImageError::TooLarge) => Err(LostReason::TooLarge),
        Err(ImageError::NotAnImage) => Err(LostReason::NotAnImage),
        Err(_) => Err(LostReason::Undecodable),
    }
}

/// What is kept of `bytes` when the file store refused them: the bytes in the record
/// when they are small enough, or the reason they are lost.
pub fn inline_fallback(mime_type: &str, bytes: &[u8]) -> KeptImage {
    if bytes.len() <= MAX_INLINE_BYTES {
        KeptImage::Inline {
            mime_type: mime_type.to_string(),
            data: STANDARD.encode(bytes),
        }
    } else {
        KeptImage::Lost {
            reason: LostReason::NotStored,
        }
    }
}

/// One block of a round's text as shown: a stretch of text, or an image (its index in
/// the reply's images).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// The text in this byte range.
    Text(Range<usize>),
    /// The reply's image at this index.
    Image(usize),
}

/// The blocks of round `round`'s `text` with the reply's `images` in their places, in
/// the order they came. An offset past the text (or inside a character, from a damaged
/// record) is moved back to the nearest boundary; empty stretches of text are left out.
pub fn blocks(text: &str, images: &[OutputImage], round: u32) -> Vec<Block> {
    let mut placed: Vec<(usize, usize)> = images
        .iter()
        .enumerate()
        .filter(|(_, image)| image.round == round)
        .map(|(index, image)| (boundary(text, image.at as usize), index))
        .collect();
    // A stable sort keeps images at the same offset in the order they came.
    placed.sort_by_key(|(at, _)| *at);
    let mut blocks = Vec::new();
    let mut start = 0;
    for (at, index) in placed {
        if at > start {
            blocks.push(Block::Text(start..at));
        }
        start = start.max(at);
        blocks.push(Block::Image(index));
    }
    if start < text.len() || blocks.is_empty() {
        blocks.push(Block::Text(start..text.len()));
    }
    blocks
}

/// The char boundary at or before `at`, within `text`.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Whether a reply with `images` may keep one more.
pub fn has_room(images: &[OutputImage]) -> bool {
    images.len() < MAX_OUTPUT_IMAGES
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::images::MAX_IMAGE_BYTES;
    use crate::provider::images::tests::PIXEL;

    fn base64(mime: &str, data: String) -> ImageData {
        ImageData::Base64 {
            mime_type: mime.into(),
            data,
        }
    }

    fn url(url: &str) -> ImageData {
        ImageData::Url { url: url.into() }
    }

    fn image(round: u32, at: u32) -> OutputImage {
        OutputImage {
            round,
            at,
            kept: KeptImage::Remote {
                url: "https://example.com/a.png".into(),
            },
            signature: String::new(),
        }
    }

    #[test]
    fn base64_and_data_urls_decode_to_bytes_typed_by_their_content() {
        let png = DecodedImage::Bytes {
            mime_type: "image/png",
            bytes: PIXEL.to_vec(),
        };
        // The label says JPEG; the bytes say PNG, and the bytes win.
        assert_eq!(
            decode(&base64("image/jpeg", STANDARD.encode(PIXEL))),
            Ok(png.clone())
        );
        let data_url = format!("data:image/png;base64,{}", STANDARD.encode(PIXEL));
        assert_eq!(decode(&url(&data_url)), Ok(png.clone()));
        let upper = format!("DATA:image/png;BASE64,{}", STANDARD.encode(PIXEL));
        assert_eq!(decode(&url(&upper)), Ok(png));
    }

    #[test]
    fn what_is_not_a_raster_image_is_refused_with_its_reason() {
        let svg = STANDARD.encode("<svg xmlns='http://www.w3.org/2000/svg'><script/></svg>");
        assert_eq!(
            decode(&base64("image/svg+xml", svg)),
            Err(LostReason::NotAnImage)
        );
        assert_eq!(
            decode(&base64("image/png", "not base64!".into())),
            Err(LostReason::Undecodable)
        );
        assert_eq!(
            decode(&url("data:image/png,rawbytes")),
            Err(LostReason::Undecodable)
        );
        assert_eq!(
            decode(&url("data:image/png;base64")),
            Err(LostReason::Undecodable)
        );
        let huge = "A".repeat((MAX_IMAGE_BYTES / 3 + 2) * 4);
        assert_eq!(
            decode(&base64("image/png", huge)),
            Err(LostReason::TooLarge)
        );
    }

    #[test]
    fn only_web_links_are_kept_as_links() {
        assert_eq!(
            decode(&url(" https://cdn.example.com/i.png ")),
            Ok(DecodedImage::Remote {
                url: "https://cdn.example.com/i.png".into()
            })
        );
        for bad in [
            "javascript:alert(1)",
            "//evil.example/i.png",
            "file:///etc/passwd",
            "blob:https://example.com/x",
            "/relative/path.png",
            "ftp://example.com/i.png",
        ] {
            assert_eq!(decode(&url(bad)), Err(LostReason::UnsafeLink), "{bad}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert_eq!(decode(&url(&long)), Err(LostReason::UnsafeLink));
    }

    #[test]
    fn a_small_image_falls_back_to_the_record_and_a_large_one_is_lost() {
        assert_eq!(
            inline_fallback("image/png", PIXEL),
            KeptImage::Inline {
                mime_type: "image/png".into(),
                data: STANDARD.encode(PIXEL)
            }
        );
        assert_eq!(
            inline_fallback("image/png", &vec![0; MAX_INLINE_BYTES + 1]),
            KeptImage::Lost {
                reason: LostReason::NotStored
            }
        );
    }

    #[test]
    fn blocks_put_each_image_where_it_came() {
        let text = "Before.After.";
        let images = [image(0, 7), image(1, 0), image(0, 0), image(0, 7)];
        assert_eq!(
            blocks(text, &images, 0),
            [
                Block::Image(2),
                Block::Text(0..7),
                Block::Image(0),
                Block::Image(3),
                Block::Text(7..13),
            ]
        );
        assert_eq!(
            blocks("tail", &images, 1),
            [Block::Image(1), Block::Text(0..4)]
        );
        // No image: the whole text, even empty.
        assert_eq!(blocks(text, &images, 2), [Block::Text(0..13)]);
        assert_eq!(blocks("", &[], 0), [Block::Text(0..0)]);
        // An image at the end leaves no empty text after it.
        assert_eq!(
            blocks("ab", &[image(0, 2)], 0),
            [Block::Text(0..2), Block::Image(0)]
        );
    }

    #[test]
    fn a_damaged_offset_lands_on_a_character_boundary() {
        // "é" is two bytes: offset 1 is inside it.
        assert_eq!(
            blocks("éa", &[image(0, 1)], 0),
            [Block::Image(0), Block::Text(0..3)]
        );
        assert_eq!(
            blocks("ab", &[image(0, 99)], 0),
            [Block::Text(0..2), Block::Image(0)]
        );
    }

    #[test]
    fn a_reply_keeps_a_bounded_number_of_images() {
        let images: Vec<OutputImage> = (0..MAX_OUTPUT_IMAGES as u32).map(|i| image(0, i)).collect();
        assert!(!has_room(&images));
        assert!(has_room(&images[1..]));
    }

    #[test]
    fn kept_images_are_stored_with_a_kind_tag_and_reason_codes() {
        let lost = OutputImage {
            round: 0,
            at: 3,
            kept: KeptImage::Lost {
                reason: LostReason::TooMany,
            },
            signature: String::new(),
        };
        let value = serde_json::to_value(&lost).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"round": 0, "at": 3, "kept": {"kind": "lost", "reason": "too_many"}})
        );
        assert_eq!(serde_json::from_value::<OutputImage>(value).unwrap(), lost);
        for reason in [
            LostReason::Undecodable,
            LostReason::NotAnImage,
            LostReason::TooLarge,
            LostReason::UnsafeLink,
            LostReason::TooMany,
            LostReason::NotStored,
        ] {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.code());
        }
    }
}
