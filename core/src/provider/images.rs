//! OpenAI-compatible Images APIs (`POST {base}/images/generations`), for the built-in
//! image generator: the arguments a model gives the tool checked and turned into a
//! request, and the provider's answer turned into image bytes with their real type
//! (read from the bytes, never from the provider's word), bounded in count and size.
//!
//! `gpt-image-*` models always answer with base64 and refuse `response_format`; other
//! models (DALL·E, LocalAI, …) are asked for `b64_json`, because a link to the image
//! usually cannot be fetched from a browser (no CORS) and expires.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use super::request::{BuiltRequest, Endpoint, RequestError, api_base};

/// The most images one call may ask for.
pub const MAX_IMAGES: u64 = 4;
/// The longest prompt, in characters.
pub const MAX_PROMPT_CHARS: usize = 4_000;
/// The largest image kept, in bytes.
pub const MAX_IMAGE_BYTES: usize = 16 * 1024 * 1024;
/// The largest answer read: [`MAX_IMAGES`] images in base64, with room for the JSON
/// around them.
pub const MAX_ANSWER_BYTES: usize = MAX_IMAGES as usize * (MAX_IMAGE_BYTES / 3 * 4 + 64 * 1024);

/// Why a call or an answer cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The tool's arguments are not usable.
    #[error("invalid arguments: {0}")]
    Arguments(String),
    /// The provider's URL or the model id is not usable.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The answer is not JSON with a `data` list.
    #[error("the provider's answer is not an image list")]
    NotAnImageList,
    /// The provider gave links instead of the images.
    #[error("the provider returned links instead of images; it does not support b64_json")]
    LinksOnly,
    /// The answer held no image.
    #[error("the provider returned no image")]
    NoImages,
    /// An image is not valid base64.
    #[error("an image could not be decoded")]
    Undecodable,
    /// An image is larger than [`MAX_IMAGE_BYTES`].
    #[error("an image is larger than {} MiB", MAX_IMAGE_BYTES / (1024 * 1024))]
    TooLarge,
    /// The bytes are not a PNG, JPEG, WebP or GIF image.
    #[error("the provider returned something that is not an image")]
    NotAnImage,
}

/// One generation, as checked from the tool's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRequest {
    /// The model.
    pub model: String,
    /// What to draw.
    pub prompt: String,
    /// How many.
    pub n: u64,
    /// `WIDTHxHEIGHT` or `auto`, when asked.
    pub size: Option<String>,
}

fn valid_size(size: &str) -> bool {
    if size == "auto" {
        return true;
    }
    let Some((w, h)) = size.split_once('x') else {
        return false;
    };
    let side = |s: &str| {
        (2..=4).contains(&s.len())
            && s.chars().all(|c| c.is_ascii_digit())
            && s.parse::<u32>().is_ok_and(|n| (64..=4096).contains(&n))
    };
    side(w) && side(h)
}

/// Checks the tool's arguments (`prompt`, optional `n` and `size`) for `model`.
pub fn request_from_args(
    model: &str,
    args: &Map<String, Value>,
) -> Result<ImageRequest, ImageError> {
    let prompt = args
        .get("prompt")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ImageError::Arguments("`prompt` must be a non-empty string".into()))?;
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(ImageError::Arguments(format!(
            "`prompt` is longer than {MAX_PROMPT_CHARS} characters"
        )));
    }
    let n = match args.get("n") {
        None | Some(Value::Null) => 1,
        Some(value) => value
            .as_u64()
            .filter(|n| (1..=MAX_IMAGES).contains(n))
            .ok_or_else(|| {
                ImageError::Arguments(format!("`n` must be a whole number from 1 to {MAX_IMAGES}"))
            })?,
    };
    let size = match args.get("size") {
        None | Some(Value::Null) => None,
        Some(Value::String(size)) if valid_size(size) => Some(size.clone()),
        Some(_) => {
            return Err(ImageError::Arguments(
                "`size` must be `auto` or WIDTHxHEIGHT, such as 1024x1024".into(),
            ));
        }
    };
    Ok(ImageRequest {
        model: model.to_string(),
        prompt: prompt.to_string(),
        n,
        size,
    })
}

/// The request for `image` on `endpoint` (authentication is added by the caller with
/// `request::auth_headers`).
pub fn build(endpoint: &Endpoint, image: &ImageRequest) -> Result<BuiltRequest, ImageError> {
    let base = api_base(endpoint)?;
    let model = image.model.trim();
    let model_ok = !model.is_empty()
        && !model.contains("..")
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@'));
    if !model_ok {
        return Err(RequestError::InvalidModel(image.model.clone()).into());
    }
    let mut body = json!({"model": model, "prompt": image.prompt, "n": image.n});
    if let Some(size) = &image.size {
        body["size"] = json!(size);
    }
    if !model.starts_with("gpt-image") {
        body["response_format"] = json!("b64_json");
    }
    Ok(BuiltRequest {
        url: format!("{base}/images/generations"),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "application/json".into()),
        ],
        body,
        omitted_images: 0,
    })
}

/// An image the provider made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedImage {
    /// Its type, read from its bytes.
    pub mime_type: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The prompt the provider actually used, when it rewrote it.
    pub revised_prompt: Option<String>,
}

/// The type of an image from its first bytes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some("image/png"),
        [0xff, 0xd8, 0xff, ..] => Some("image/jpeg"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some("image/gif"),
        _ => None,
    }
}

/// An image's bytes from base64 (surrounding white space ignored), bounded to
/// [`MAX_IMAGE_BYTES`] before and after decoding, and its type read from the bytes: the
/// one way base64 from outside (a provider, a tool, a model's reply) becomes an image.
pub fn decode_base64(encoded: &str) -> Result<(&'static str, Vec<u8>), ImageError> {
    let encoded = encoded.trim();
    // Base64 is 4 characters per 3 bytes: refuse before decoding anything huge.
    if encoded.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(ImageError::TooLarge);
    }
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|_| ImageError::Undecodable)?;
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge);
    }
    let mime_type = sniff(&bytes).ok_or(ImageError::NotAnImage)?;
    Ok((mime_type, bytes))
}

/// The images of a provider's answer, at most [`MAX_IMAGES`].
pub fn parse(body: &str) -> Result<Vec<GeneratedImage>, ImageError> {
    let value: Value = serde_json::from_str(body).map_err(|_| ImageError::NotAnImageList)?;
    let data = value["data"].as_array().ok_or(ImageError::NotAnImageList)?;
    let mut images = Vec::new();
    let mut links = false;
    for entry in data.iter().take(MAX_IMAGES as usize) {
        let Some(encoded) = entry["b64_json"].as_str() else {
            links |= entry["url"].is_string();
            continue;
        };
        let (mime_type, bytes) = decode_base64(encoded)?;
        images.push(GeneratedImage {
            mime_type,
            bytes,
            revised_prompt: entry["revised_prompt"].as_str().map(str::to_string),
        });
    }
    match (images.is_empty(), links) {
        (false, _) => Ok(images),
        (true, true) => Err(ImageError::LinksOnly),
        (true, false) => Err(ImageError::NoImages),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::provider::Protocol;

    /// The smallest valid PNG: a 1×1 transparent pixel.
    pub(crate) const PIXEL: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00,
        0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn endpoint() -> Endpoint {
        Endpoint {
            protocol: Protocol::OpenAiChat,
            base_url: "https://api.openai.com/v1/".into(),
            compatible: false,
        }
    }

    #[test]
    fn base64_becomes_bounded_bytes_typed_by_their_content() {
        let encoded = format!("  {}\n", STANDARD.encode(PIXEL));
        assert_eq!(decode_base64(&encoded), Ok(("image/png", PIXEL.to_vec())));
        assert_eq!(
            decode_base64(&STANDARD.encode("GIF8 but not quite")),
            Err(ImageError::NotAnImage)
        );
        assert_eq!(decode_base64("%%%"), Err(ImageError::Undecodable));
        let huge = "A".repeat((MAX_IMAGE_BYTES / 3 + 2) * 4);
        assert_eq!(decode_base64(&huge), Err(ImageError::TooLarge));
    }

    #[test]
    fn arguments_are_checked_and_become_the_request() {
        let request = request_from_args(
            "dall-e-3",
            &args(json!({"prompt": " a red fox ", "size": "1024x1792"})),
        )
        .unwrap();
        assert_eq!(request.prompt, "a red fox");
        assert_eq!(request.n, 1);
        let built = build(&endpoint(), &request).unwrap();
        assert_eq!(built.url, "https://api.openai.com/v1/images/generations");
        assert_eq!(
            built.body,
            json!({"model": "dall-e-3", "prompt": "a red fox", "n": 1, "size": "1024x1792",
                "response_format": "b64_json"})
        );
        // gpt-image models refuse `response_format` and always answer in base64.
        let gpt =
            request_from_args("gpt-image-1", &args(json!({"prompt": "fox", "n": 2}))).unwrap();
        let body = build(&endpoint(), &gpt).unwrap().body;
        assert!(body.get("response_format").is_none(), "{body}");
        assert_eq!(body["n"], json!(2));
    }

    #[test]
    fn bad_arguments_are_typed_errors() {
        for bad in [
            json!({}),
            json!({"prompt": "   "}),
            json!({"prompt": 5}),
            json!({"prompt": "x".repeat(MAX_PROMPT_CHARS + 1)}),
            json!({"prompt": "fox", "n": 0}),
            json!({"prompt": "fox", "n": 5}),
            json!({"prompt": "fox", "n": 1.5}),
            json!({"prompt": "fox", "size": "big"}),
            json!({"prompt": "fox", "size": "10x10"}),
            json!({"prompt": "fox", "size": "1024x1024x2"}),
        ] {
            assert!(
                matches!(
                    request_from_args("m", &args(bad.clone())),
                    Err(ImageError::Arguments(_))
                ),
                "{bad}"
            );
        }
        let request = request_from_args("../x", &args(json!({"prompt": "fox"}))).unwrap();
        assert!(matches!(
            build(&endpoint(), &request),
            Err(ImageError::Request(_))
        ));
    }

    #[test]
    fn answers_become_bytes_with_their_real_type() {
        let encoded = STANDARD.encode(PIXEL);
        let body =
            json!({"created": 1, "data": [{"b64_json": encoded, "revised_prompt": "A red fox"}]})
                .to_string();
        let images = parse(&body).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].mime_type, "image/png");
        assert_eq!(images[0].bytes, PIXEL);
        assert_eq!(images[0].revised_prompt.as_deref(), Some("A red fox"));
    }

    #[test]
    fn unusable_answers_say_why() {
        assert_eq!(parse("nope"), Err(ImageError::NotAnImageList));
        assert_eq!(parse(r#"{"data": []}"#), Err(ImageError::NoImages));
        assert_eq!(
            parse(r#"{"data": [{"url": "https://x.example/i.png"}]}"#),
            Err(ImageError::LinksOnly)
        );
        assert_eq!(
            parse(r#"{"data": [{"b64_json": "!!!"}]}"#),
            Err(ImageError::Undecodable)
        );
        let html = STANDARD.encode(b"<svg onload=alert(1)>");
        assert_eq!(
            parse(&json!({"data": [{"b64_json": html}]}).to_string()),
            Err(ImageError::NotAnImage),
            "only raster types sniffed from the bytes pass"
        );
        let huge = "A".repeat((MAX_IMAGE_BYTES / 3 + 10) * 4);
        assert_eq!(
            parse(&json!({"data": [{"b64_json": huge}]}).to_string()),
            Err(ImageError::TooLarge)
        );
        // At most four images are kept.
        let encoded = STANDARD.encode(PIXEL);
        let many: Vec<Value> = (0..6).map(|_| json!({"b64_json": encoded})).collect();
        assert_eq!(parse(&json!({"data": many}).to_string()).unwrap().len(), 4);
    }
}
