//! Hearth's own plugins, always present and never replaceable (their `builtin:` ids are
//! reserved). The web page reader fetches one public page through the edge's checked
//! client and gives the model its text. The image generator runs in the browser: it
//! calls the OpenAI-compatible Images API of the model the user chose with the user's
//! key, keeps the images in the browser's private file system and tells the model what
//! it made (`provider::images` holds its request and answer rules).

use serde_json::json;

use super::model::{Auth, Plugin, PluginFunction, Source};
use super::risk::Risk;

/// The web page reader's id.
pub const WEB_READER_ID: &str = "builtin:web-reader";
/// Its function.
pub const READ_WEB_PAGE: &str = "read_web_page";
/// The most characters of page text given to the model by default.
pub const DEFAULT_PAGE_CHARS: u64 = 20_000;
/// The most a call may ask for.
pub const MAX_PAGE_CHARS: u64 = 100_000;

/// The image generator's id.
pub const IMAGE_GENERATOR_ID: &str = "builtin:image-generator";
/// Its function.
pub const GENERATE_IMAGE: &str = "generate_image";

/// The web page reader.
pub fn web_reader() -> Plugin {
    let function = PluginFunction {
        name: READ_WEB_PAGE.into(),
        description: "Fetch a web page (http or https) and return its text, without \
                          markup. Use it to read a page the user mentions or a source you \
                          need to quote."
            .into(),
        parameters: json!({
            "type": "object",
            "required": ["url"],
            "additionalProperties": false,
            "properties": {
                "url": {"type": "string", "minLength": 8, "maxLength": 2048,
                    "description": "The page's absolute http(s) URL"},
                "maxChars": {"type": "integer", "minimum": 500, "maximum": MAX_PAGE_CHARS,
                    "description": "The most characters of text to return"}
            }
        }),
        method: None,
        path: None,
        tool: None,
        risk: Risk::Read,
        enabled: true,
        app: None,
    };
    Plugin {
        description: "Reads the text of a web page.".into(),
        ..Plugin::new(
            WEB_READER_ID,
            "Web page reader",
            Source::Builtin,
            Auth::None,
            vec![function],
        )
    }
}

/// The image generator.
pub fn image_generator() -> Plugin {
    let function = PluginFunction {
        name: GENERATE_IMAGE.into(),
        description: "Generate images from a detailed text description. The images are \
                          shown to the user under this call; describe what you made, do not \
                          repeat it as a link."
            .into(),
        parameters: json!({
            "type": "object",
            "required": ["prompt"],
            "additionalProperties": false,
            "properties": {
                "prompt": {"type": "string", "minLength": 1,
                    "maxLength": crate::provider::images::MAX_PROMPT_CHARS,
                    "description": "What the image shows, in detail"},
                "size": {"type": "string", "maxLength": 9,
                    "description": "WIDTHxHEIGHT such as 1024x1024, or auto"},
                "n": {"type": "integer", "minimum": 1,
                    "maximum": crate::provider::images::MAX_IMAGES,
                    "description": "How many images (default 1)"}
            }
        }),
        method: None,
        path: None,
        tool: None,
        // A paid call to an outside service.
        risk: Risk::External,
        enabled: true,
        app: None,
    };
    Plugin {
        description: "Draws images with an OpenAI-compatible Images API.".into(),
        ..Plugin::new(
            IMAGE_GENERATOR_ID,
            "Image generator",
            Source::Builtin,
            Auth::None,
            vec![function],
        )
    }
}

/// Every built-in plugin.
pub fn all() -> Vec<Plugin> {
    vec![web_reader(), image_generator()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::args::check;
    use crate::plugin::registry::{active, is_reserved};

    #[test]
    fn builtins_are_reserved_and_their_arguments_checked() {
        for plugin in all() {
            assert!(is_reserved(&plugin.id), "{}", plugin.id);
            assert_eq!(plugin.source, Source::Builtin);
        }
        let reader = web_reader();
        let schema = &reader.functions[0].parameters;
        assert!(check(&json!({"url": "https://example.com/a"}), schema).is_ok());
        assert!(check(&json!({}), schema).is_err());
        assert!(
            check(
                &json!({"url": "https://example.com", "maxChars": 10}),
                schema
            )
            .is_err()
        );
        assert!(check(&json!({"url": "https://example.com", "extra": 1}), schema).is_err());
        // A stored impostor with the same id loses to the built-in.
        let mut impostor = web_reader();
        impostor.source = Source::Openapi;
        impostor.functions[0].name = "exfiltrate".into();
        let builtins = all();
        let installed = [impostor];
        let plugins = active(&builtins, &installed);
        assert_eq!(plugins.len(), builtins.len());
        assert_eq!(plugins[0].functions[0].name, READ_WEB_PAGE);
        assert!(
            plugins
                .iter()
                .all(|p| p.functions.iter().all(|f| f.name != "exfiltrate"))
        );
        let generator = image_generator();
        let schema = &generator.functions[0].parameters;
        assert!(
            check(
                &json!({"prompt": "a fox", "n": 2, "size": "1024x1024"}),
                schema
            )
            .is_ok()
        );
        assert!(check(&json!({"prompt": "a fox", "n": 9}), schema).is_err());
        assert!(check(&json!({"n": 1}), schema).is_err());
    }
}
