//! The built-in image generator, run in the browser: the model the user chose in
//! Settings › Tools, its provider's key from the vault, one request to the provider's
//! OpenAI-compatible Images API straight from the browser (`hearth_core::provider::
//! images` builds it and reads the answer), and every image kept in the private file
//! system (`crate::files`), named in the call's record so its card shows it. The model
//! is told what was made; an error is a result it can explain.

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

/// Runs one `generate_image` call.
pub(super) async fn generate(
    targets: Targets,
    function: &str,
    args: &Map<String, Value>,
    signal: &web_sys::AbortSignal,
) -> Result<Generated, String> {
    if function != GENERATE_IMAGE {
        return Err(format!("The image generator has no function {function}."));
    }
    let model = targets
        .prefs
        .value
        .with_untracked(|p| p.image_model.clone())
        .ok_or("No image model is chosen: the user can choose one in Settings › Tools.")?;
    let target = targets.resolve(&model).await.map_err(|error| {
        format!(
            "The image model cannot be used ({}); the user can check it in Settings › Tools.",
            error.log_line()
        )
    })?;
    let provider = target.provider;
    if provider.server.is_some() {
        return Err(
            "The image model belongs to a provider configured on the server; choose a model \
             of a provider with its own key in Settings › Tools."
                .into(),
        );
    }
    let endpoint = provider.endpoint();
    if !matches!(
        endpoint.protocol,
        Protocol::OpenAiChat | Protocol::OpenAiResponses
    ) {
        return Err(format!(
            "{} has no OpenAI-compatible Images API; choose another image model in Settings › Tools.",
            provider.name
        ));
    }
    let request = images::request_from_args(&model.model, args).map_err(|e| e.to_string())?;
    let built = images::build(&endpoint, &request).map_err(|e| e.to_string())?;
    let init = post_init(&built, endpoint.protocol, target.key.as_deref())
        .ok_or("the browser refused the request")?;
    let response = match start(&built.url, &init, signal).await {
        Ok(response) => response,
        Err(OpenError::Aborted) => return Err("The reply was stopped.".into()),
        Err(_) => {
            return Err(format!(
                "{} did not answer the browser (it may not allow calls from web pages).",
                provider.name
            ));
        }
    };
    if !response.ok() {
        let body = read_error_text(&response).await;
        return Err(format!(
            "{} answered {}: {}",
            provider.name,
            response.status(),
            provider_message(&body).unwrap_or_else(|| response.status_text())
        ));
    }
    // Bounded while it arrives: a provider's answer is outside input.
    let limits = Limits {
        max_bytes: images::MAX_ANSWER_BYTES,
        silence_ms: IMAGE_SILENCE_MS,
        deadline_ms: None,
    };
    let stream = reader(&response).map_err(|_| "the answer had no body".to_string())?;
    let body = Reader::new(stream, limits).read_all().await.map_err(|_| {
        format!(
            "{}'s answer broke off or was larger than {} MiB.",
            provider.name,
            images::MAX_ANSWER_BYTES / (1024 * 1024)
        )
    })?;
    let made = images::parse(&String::from_utf8_lossy(&body)).map_err(|e| e.to_string())?;
    let mut stored = Vec::new();
    for GeneratedImage {
        mime_type, bytes, ..
    } in &made
    {
        let name = files::new_name(extension(mime_type));
        files::save(IMAGES, &name, bytes)
            .await
            .map_err(|e| format!("The image could not be kept: {e}."))?;
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
