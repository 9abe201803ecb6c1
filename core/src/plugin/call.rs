//! Turning a checked call of a REST function into the HTTP request the edge sends: path
//! parameters filled in (percent-encoded, a missing one is an error, never an empty
//! segment), the other arguments in the query for `GET` and `DELETE` or as the JSON body
//! otherwise (a declared `body` argument is the body itself), and the credential placed
//! where the plugin's auth says. The request goes to the plugin's own server URL and
//! nowhere else: a path that would leave it is refused.

use serde_json::{Map, Value};

use super::model::{Auth, AuthPlacement, HttpMethod, Plugin, PluginFunction};

/// Headers a credential may never be placed in (hop-by-hop and the browser's own).
const FORBIDDEN_HEADERS: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "cookie",
    "set-cookie",
];

/// A request ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestCall {
    /// The method.
    pub method: HttpMethod,
    /// The full URL, query included.
    pub url: String,
    /// Extra headers (the credential, `content-type`).
    pub headers: Vec<(String, String)>,
    /// The JSON body, if any.
    pub body: Option<String>,
}

/// Why a call could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The function is not a REST function of this plugin.
    #[error("{0} is not a REST function")]
    NotRest(String),
    /// A path parameter has no value.
    #[error("the path parameter `{0}` is missing")]
    MissingPathParameter(String),
    /// A path parameter is an object or array.
    #[error("the path parameter `{0}` must be a string, number or boolean")]
    BadPathParameter(String),
    /// The plugin needs a credential and none was given.
    #[error("this plugin needs a credential; add it in its settings")]
    MissingCredential,
    /// The auth names a header the edge may not set.
    #[error("the credential cannot go in the `{0}` header")]
    ForbiddenHeader(String),
    /// The URL would not stay on the plugin's server.
    #[error("the request would leave the plugin's server")]
    LeavesServer,
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Builds the request for calling `function` of `plugin` with `args` (already checked
/// by [`super::args`]) and the user's `secret` for the plugin's auth.
pub fn build(
    plugin: &Plugin,
    function: &PluginFunction,
    args: &Value,
    secret: Option<&str>,
) -> Result<RestCall, CallError> {
    let (Some(method), Some(template), Some(server)) = (
        function.method,
        function.path.as_deref(),
        plugin.server_url.as_deref(),
    ) else {
        return Err(CallError::NotRest(function.name.clone()));
    };
    let mut rest: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    // Path parameters, each one path segment's worth, percent-encoded.
    let mut path = String::new();
    let mut remaining = template;
    while let Some(open) = remaining.find('{') {
        path.push_str(&remaining[..open]);
        let close = remaining[open..]
            .find('}')
            .ok_or_else(|| CallError::MissingPathParameter(remaining[open..].to_string()))?;
        let name = &remaining[open + 1..open + close];
        let value = rest
            .remove(name)
            .ok_or_else(|| CallError::MissingPathParameter(name.to_string()))?;
        let value = scalar(&value).ok_or_else(|| CallError::BadPathParameter(name.to_string()))?;
        if value.is_empty() {
            return Err(CallError::MissingPathParameter(name.to_string()));
        }
        path.push_str(
            &url::form_urlencoded::byte_serialize(value.as_bytes())
                .collect::<String>()
                .replace('+', "%20"),
        );
        remaining = &remaining[open + close + 1..];
    }
    path.push_str(remaining);
    let base = url::Url::parse(&format!("{}/", server.trim_end_matches('/')))
        .map_err(|_| CallError::LeavesServer)?;
    let mut url = base
        .join(path.trim_start_matches('/'))
        .map_err(|_| CallError::LeavesServer)?;
    if url.origin() != base.origin() || !url.path().starts_with(base.path()) {
        return Err(CallError::LeavesServer);
    }
    let mut headers = Vec::new();
    let mut body = None;
    let in_query = matches!(method, HttpMethod::Get | HttpMethod::Delete);
    if in_query {
        let mut query = url.query_pairs_mut();
        for (key, value) in &rest {
            match value {
                Value::Array(items) => {
                    for item in items {
                        if let Some(item) = scalar(item) {
                            query.append_pair(key, &item);
                        }
                    }
                }
                Value::Null => {}
                other => {
                    let text = scalar(other).unwrap_or_else(|| other.to_string());
                    query.append_pair(key, &text);
                }
            }
        }
    } else {
        let payload = match rest.remove("body") {
            Some(body) if rest.is_empty() => body,
            Some(body) => {
                // Query-like parameters next to a body go in the query.
                let mut query = url.query_pairs_mut();
                for (key, value) in &rest {
                    if let Some(text) = scalar(value) {
                        query.append_pair(key, &text);
                    }
                }
                drop(query);
                body
            }
            None => Value::Object(rest.clone()),
        };
        body = Some(payload.to_string());
        headers.push(("content-type".to_string(), "application/json".to_string()));
    }
    match &plugin.auth {
        Auth::None => {}
        auth => {
            let secret = secret
                .filter(|s| !s.is_empty())
                .ok_or(CallError::MissingCredential)?;
            match auth {
                Auth::Bearer | Auth::Oauth2 => {
                    headers.push(("authorization".into(), format!("Bearer {secret}")));
                }
                Auth::Basic => {
                    headers.push((
                        "authorization".into(),
                        format!("Basic {}", base64(secret.as_bytes())),
                    ));
                }
                Auth::ApiKey { name, placement } => match placement {
                    AuthPlacement::Header => {
                        let lower = name.to_ascii_lowercase();
                        if FORBIDDEN_HEADERS.contains(&lower.as_str()) || lower.is_empty() {
                            return Err(CallError::ForbiddenHeader(name.clone()));
                        }
                        headers.push((lower, secret.to_string()));
                    }
                    AuthPlacement::Query => {
                        url.query_pairs_mut().append_pair(name, secret);
                    }
                },
                Auth::None => {}
            }
        }
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
    Ok(RestCall {
        method,
        url: url.to_string(),
        headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::model::Source;
    use crate::plugin::risk::Risk;
    use serde_json::json;

    fn plugin(auth: Auth, method: HttpMethod, path: &str) -> Plugin {
        let function = PluginFunction {
            name: "f".into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            method: Some(method),
            path: Some(path.into()),
            tool: None,
            risk: Risk::Read,
            enabled: true,
            app: None,
        };
        Plugin {
            server_url: Some("https://api.example.com/v1".into()),
            ..Plugin::new("items", "Items", Source::Openapi, auth, vec![function])
        }
    }

    fn call(p: &Plugin, args: Value, secret: Option<&str>) -> Result<RestCall, CallError> {
        build(p, &p.functions[0], &args, secret)
    }

    #[test]
    fn path_parameters_fill_the_template_and_the_rest_goes_in_the_query() {
        let p = plugin(
            Auth::ApiKey {
                name: "token".into(),
                placement: AuthPlacement::Query,
            },
            HttpMethod::Get,
            "/items/{id}",
        );
        let built = call(
            &p,
            json!({"id": "abc", "q": "neo", "tags": ["a", "b"]}),
            Some("secret-value"),
        )
        .unwrap();
        assert_eq!(
            built.url,
            "https://api.example.com/v1/items/abc?q=neo&tags=a&tags=b&token=secret-value"
        );
        assert_eq!(built.body, None);
        // A value that would add segments or a query is one encoded segment.
        let sneaky = call(&p, json!({"id": "../../admin?x=1"}), Some("s")).unwrap();
        assert_eq!(
            sneaky.url,
            "https://api.example.com/v1/items/..%2F..%2Fadmin%3Fx%3D1?token=s"
        );
    }

    #[test]
    fn missing_and_unusable_path_parameters_are_errors() {
        let p = plugin(Auth::None, HttpMethod::Get, "/items/{id}");
        assert_eq!(
            call(&p, json!({}), None),
            Err(CallError::MissingPathParameter("id".into()))
        );
        assert_eq!(
            call(&p, json!({"id": ""}), None),
            Err(CallError::MissingPathParameter("id".into()))
        );
        assert_eq!(
            call(&p, json!({"id": {"a": 1}}), None),
            Err(CallError::BadPathParameter("id".into()))
        );
        assert_eq!(
            call(&p, json!({"id": 42}), None).unwrap().url,
            "https://api.example.com/v1/items/42"
        );
    }

    #[test]
    fn other_methods_send_json_and_credentials_go_where_the_auth_says() {
        let p = plugin(Auth::Bearer, HttpMethod::Post, "/items");
        let built = call(&p, json!({"name": "x", "count": 2}), Some("tok")).unwrap();
        assert_eq!(built.url, "https://api.example.com/v1/items");
        assert_eq!(built.body.as_deref(), Some(r#"{"count":2,"name":"x"}"#));
        assert!(
            built
                .headers
                .contains(&("authorization".into(), "Bearer tok".into()))
        );
        assert!(
            built
                .headers
                .contains(&("content-type".into(), "application/json".into()))
        );
        // A declared body is the body; parameters beside it go in the query.
        let with_body = call(&p, json!({"body": [1, 2], "dry": true}), Some("tok")).unwrap();
        assert_eq!(with_body.body.as_deref(), Some("[1,2]"));
        assert_eq!(with_body.url, "https://api.example.com/v1/items?dry=true");
        let basic = plugin(Auth::Basic, HttpMethod::Get, "/me");
        assert!(
            call(&basic, json!({}), Some("user:pass"))
                .unwrap()
                .headers
                .contains(&("authorization".into(), "Basic dXNlcjpwYXNz".into()))
        );
        let header_key = plugin(
            Auth::ApiKey {
                name: "X-Api-Key".into(),
                placement: AuthPlacement::Header,
            },
            HttpMethod::Get,
            "/me",
        );
        assert!(
            call(&header_key, json!({}), Some("k"))
                .unwrap()
                .headers
                .contains(&("x-api-key".into(), "k".into()))
        );
        assert_eq!(
            call(&header_key, json!({}), None),
            Err(CallError::MissingCredential)
        );
    }

    #[test]
    fn credentials_never_go_in_hop_by_hop_or_cookie_headers() {
        for name in [
            "Cookie",
            "Host",
            "Transfer-Encoding",
            "Proxy-Authorization",
            "",
        ] {
            let p = plugin(
                Auth::ApiKey {
                    name: name.into(),
                    placement: AuthPlacement::Header,
                },
                HttpMethod::Get,
                "/me",
            );
            assert_eq!(
                call(&p, json!({}), Some("k")),
                Err(CallError::ForbiddenHeader(name.into()))
            );
        }
    }

    #[test]
    fn requests_stay_on_the_plugins_server() {
        let outcome =
            |path: &str| call(&plugin(Auth::None, HttpMethod::Get, path), json!({}), None);
        assert_eq!(outcome("/../../other"), Err(CallError::LeavesServer));
        assert_eq!(
            outcome("https://evil.example/x"),
            Err(CallError::LeavesServer)
        );
        // A doubled slash is a path under the server, not another host.
        assert_eq!(
            outcome("//evil.example/x").unwrap().url,
            "https://api.example.com/v1/evil.example/x"
        );
    }
}
