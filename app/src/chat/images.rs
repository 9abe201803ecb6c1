//! The built-in image generator, run in the browser: the model the user chose in
//! Settings › Tools, its provider's key from the vault, one request to the provider's
//! OpenAI-compatible Images API straight from the browser (`hearth_core::provider::
//! images` builds it and reads the answer), and every image kept in the private file
//! system (`crate::files`), named in the call's record so its card shows it. The model
//! is told what was made; an error is a result it can explain.

use hearth_core::chat::GenerationError;
use hearth_core::plugin::builtin::GENERATE_IMAGE;
use hearth_core::provider::Protocol;
use hearth_core::provider::images::{self, GeneratedImage};
use leptos::prelude::*;
use serde_json::{Map, Value};

use super::stream::{Limits, Reader};
use super::target::Targets;
use super::transport::{OpenError, post_init, provider_message, reader, start};
use crate::files::{self, IMAGES};
use crate::http::read_error_text;

/// How long an image provider may stay silent, in ms (generating takes a while).
const IMAGE_SILENCE_MS: f64 = 120_000.0;

/// What a generation made.
pub(super) struct Generated {
    /// What the model is told.
    pub text: String,
    /// The stored images' file names.
    pub files: Vec<String>,
}

/// The file extension of an image type.
pub(super) fn extension(mime: &str) -> &'static str {
    match mime {
        "image/jpeg" => "jpg",
        "image/webp" => "webp",
        "image/gif" => "gif",
        _ => "png",
    }
}

/// Why an image was not made. Its text is the call's result: the model reads it and
/// explains it to the user, so it says what to do.
#[derive(Debug)]
pub(super) enum ImageError {
    /// The call named another function.
    NoFunction(String),
    /// The user has not chosen an image model.
    NoModel,
    /// The image model cannot be used (its provider is gone, its key unreadable).
    Unusable(GenerationError),
    /// The image model's provider is the operator's (its key stays on the edge).
    ServerProvider,
    /// The provider speaks no OpenAI-compatible Images API.
    NoImagesApi(String),
    /// The arguments or the request are not usable.
    Request(String),
    /// The browser would not make the request.
    Refused,
    /// The reply was stopped.
    Stopped,
    /// The provider did not answer the browser.
    Unreachable(String),
    /// The provider answered with an error.
    Status {
        provider: String,
        status: u16,
        message: String,
    },
    /// The answer broke off or was too large.
    Body { provider: String },
    /// The answer held no usable image.
    Answer(String),
    /// An image could not be kept in the browser.
    Store(String),
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SETTINGS: &str = "the user can change it in Settings › Tools";
        match self {
            Self::NoFunction(name) => write!(f, "The image generator has no function {name}."),
            Self::NoModel => write!(f, "No image model is chosen: {SETTINGS}."),
            Self::Unusable(error) => write!(
                f,
                "The image model cannot be used ({}); {SETTINGS}.",
                error.log_line()
            ),
            Self::ServerProvider => write!(
                f,
                "The image model belongs to a provider configured on the server; choose a \
                 model of a provider with its own key: {SETTINGS}."
            ),
            Self::NoImagesApi(provider) => write!(
                f,
                "{provider} has no OpenAI-compatible Images API; choose another image model: \
                 {SETTINGS}."
            ),
            Self::Request(why) => write!(f, "{why}"),
            Self::Refused => write!(f, "The browser refused the request."),
            Self::Stopped => write!(f, "The reply was stopped."),
            Self::Unreachable(provider) => write!(
                f,
                "{provider} did not answer the browser (it may not allow calls from web pages)."
            ),
            Self::Status {
                provider,
                status,
                message,
            } => write!(f, "{provider} answered {status}: {message}"),
            Self::Body { provider } => write!(
                f,
                "{provider}'s answer broke off or was larger than {} MiB.",
                images::MAX_ANSWER_BYTES / (1024 * 1024)
            ),
            Self::Answer(why) => write!(f, "{why}"),
            Self::Store(why) => write!(f, "The image could not be kept: {why}."),
        }
    }
}

/// Runs one `generate_image` call.
pub(super) async fn generate(
    targets: Targets,
    function: &str,
    args: &Map<String, Value>,
    signal: &web_sys::AbortSignal,
) -> Result<Generated, ImageError> {
    if function != GENERATE_IMAGE {
        return Err(ImageError::NoFunction(function.to_string()));
    }
    let model = targets
        .prefs
        .value
        .with_untracked(|p| p.image_model.clone())
        .ok_or(ImageError::NoModel)?;
    let target = targets
        .resolve(&model)
        .await
        .map_err(ImageError::Unusable)?;
    let provider = target.provider;
    if provider.server.is_some() {
        return Err(ImageError::ServerProvider);
    }
    let endpoint = provider.endpoint();
    if !matches!(
        endpoint.protocol,
        Protocol::OpenAiChat | Protocol::OpenAiResponses
    ) {
        return Err(ImageError::NoImagesApi(provider.name));
    }
    let request = images::request_from_args(&model.model, args)
        .map_err(|e| ImageError::Request(e.to_string()))?;
    let built =
        images::build(&endpoint, &request).map_err(|e| ImageError::Request(e.to_string()))?;
    let init =
        post_init(&built, endpoint.protocol, target.key.as_deref()).ok_or(ImageError::Refused)?;
    let response = match start(&built.url, &init, signal).await {
        Ok(response) => response,
        Err(OpenError::Aborted) => return Err(ImageError::Stopped),
        Err(_) => return Err(ImageError::Unreachable(provider.name)),
    };
    if !response.ok() {
        let body = read_error_text(&response).await;
        return Err(ImageError::Status {
            provider: provider.name,
            status: response.status(),
            message: provider_message(&body).unwrap_or_else(|| response.status_text()),
        });
    }
    // Bounded while it arrives: a provider's answer is outside input.
    let limits = Limits {
        max_bytes: images::MAX_ANSWER_BYTES,
        silence_ms: IMAGE_SILENCE_MS,
        deadline_ms: None,
    };
    let broken = || ImageError::Body {
        provider: provider.name.clone(),
    };
    let stream = reader(&response).map_err(|_| broken())?;
    let body = Reader::new(stream, limits)
        .read_all()
        .await
        .map_err(|_| broken())?;
    let made = images::parse(&String::from_utf8_lossy(&body))
        .map_err(|e| ImageError::Answer(e.to_string()))?;
    let mut stored = Vec::new();
    for GeneratedImage {
        mime_type, bytes, ..
    } in &made
    {
        let name = files::new_name(extension(mime_type));
        files::save(IMAGES, &name, bytes)
            .await
            .map_err(|e| ImageError::Store(e.to_string()))?;
        stored.push(name);
    }
    let used = made
        .iter()
        .find_map(|image| image.revised_prompt.clone())
        .unwrap_or(request.prompt);
    Ok(Generated {
        text: format!(
            "Generated {} image(s) with {}. Prompt used: {used}. The user sees the images \
             under this call.",
            stored.len(),
            model.model
        ),
        files: stored,
    })
}
